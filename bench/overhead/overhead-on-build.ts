import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OverheadResult } from './run-overhead.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..', '..');
// The packages the cases import, in dependency order: each build reads the previous one's types.
const packages = ['packages/core', 'packages/ai-sdk-adapter'];

export interface OverheadOnBuildOptions {
  iterations: number;
  rounds: number;
  log?: ((line: string) => void) | undefined;
}

/**
 * Builds the packages and the overhead cases with tsc, then measures in a separate plain
 * `node` process without the `recourse-source` condition: the JavaScript a user runs.
 * (Through a TypeScript loader every closure made per call gets a `__name()` wrapper from
 * `keepNames`, which overstates the per-call cost.)
 */
export function runOverheadOnBuild(options: OverheadOnBuildOptions): OverheadResult {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const run = (args: string[], env: NodeJS.ProcessEnv = process.env) => {
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env });
    if (result.status !== 0) throw new Error(`overhead: \`node ${args.join(' ')}\` failed`);
  };
  for (const pkg of packages) {
    options.log?.(`overhead: tsc -p ${pkg}/tsconfig.build.json`);
    run([tsc, '-p', join(pkg, 'tsconfig.build.json')]);
  }
  options.log?.('overhead: tsc -p bench/overhead/tsconfig.json');
  run([tsc, '-p', join('bench', 'overhead', 'tsconfig.json')]);
  const directory = mkdtempSync(join(tmpdir(), 'recourse-overhead-'));
  const output = join(directory, 'overhead.json');
  const main = join('bench', 'overhead', 'dist', 'main.js');
  const command = `node --expose-gc ${main} ${options.iterations} ${options.rounds}`;
  // A clean environment for the measured process: no loader or condition inherited.
  const { NODE_OPTIONS: _, ...env } = process.env;
  try {
    run(['--expose-gc', main, String(options.iterations), String(options.rounds), output], {
      ...env,
      RECOURSE_OVERHEAD_COMMAND: command,
    });
    return JSON.parse(readFileSync(output, 'utf8')) as OverheadResult;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
