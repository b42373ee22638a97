import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderMethod } from './method.js';
import { renderCharts } from './render-charts.js';
import { renderMarkdown } from './render-markdown.js';
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
