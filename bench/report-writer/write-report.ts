import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderMethod } from './method.js';
import { renderCharts } from './render-charts.js';
import { renderMarkdown, renderReadmeHeadline } from './render-markdown.js';
import type { BenchResults } from './report-data.js';

/** Writes README.md, results.json and the SVG charts into `directory`. Returns the file names. */
export function writeReport(results: BenchResults, directory: string): string[] {
  mkdirSync(directory, { recursive: true });
  const files: Record<string, string> = {
    'README.md': renderMarkdown(results, renderMethod(results)),
    'results.json': `${JSON.stringify(results, null, 2)}\n`,
    ...renderCharts(results),
  };
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(directory, name), content);
  return Object.keys(files);
}

const start = '<!-- bench:headline -->';
const end = '<!-- /bench:headline -->';

/**
 * Replaces the headline between the markers of the project README, so the README shows
 * the figures of the last full run and never numbers typed by hand. False when the
 * README has no markers.
 */
export function updateReadmeHeadline(results: BenchResults, readmePath: string): boolean {
  const readme = readFileSync(readmePath, 'utf8');
  const from = readme.indexOf(start);
  if (from < 0) return false;
  const to = readme.indexOf(end, from);
  const tail = to < 0 ? readme.slice(from + start.length) : readme.slice(to + end.length);
  writeFileSync(
    readmePath,
    `${readme.slice(0, from)}${start}\n${renderReadmeHeadline(results)}\n${end}${tail}`,
  );
  return true;
}
