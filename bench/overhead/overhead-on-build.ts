import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildForBench, plainEnvironment, runPlainNode } from '../on-build.js';
import type { OverheadResult } from './run-overhead.js';

// The packages the cases import, in dependency order.
const packages = ['packages/core', 'packages/ai-sdk-adapter'];

export interface OverheadOnBuildOptions {
  iterations: number;
  rounds: number;
  log?: ((line: string) => void) | undefined;
}

/**
 * Builds the packages and the overhead cases with tsc, then measures in a separate plain
 * `node` process without the `recourse-source` condition: the JavaScript a user runs.
 */
export function runOverheadOnBuild(options: OverheadOnBuildOptions): OverheadResult {
  buildForBench(packages, join('bench', 'overhead'), (line) => options.log?.(`overhead: ${line}`));
  const directory = mkdtempSync(join(tmpdir(), 'recourse-overhead-'));
  const output = join(directory, 'overhead.json');
  const main = join('bench', 'overhead', 'dist', 'main.js');
  const command = `node --expose-gc ${main} ${options.iterations} ${options.rounds}`;
  try {
    runPlainNode(
      ['--expose-gc', main, String(options.iterations), String(options.rounds), output],
      plainEnvironment({ RECOURSE_OVERHEAD_COMMAND: command }),
    );
    return JSON.parse(readFileSync(output, 'utf8')) as OverheadResult;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
