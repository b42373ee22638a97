import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * Compiles `packages` (in dependency order: each build reads the previous one's types) and
 * then the benchmark folder `benchProject` with tsc, so that what is measured is the
 * JavaScript a user runs, not sources through a TypeScript loader (which wraps every
 * closure made per call in a `__name()` helper and overstates the per-call cost).
 */
export function buildForBench(
  packages: readonly string[],
  benchProject: string,
  log?: ((line: string) => void) | undefined,
): void {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  for (const pkg of [
    ...packages.map((p) => join(p, 'tsconfig.build.json')),
    join(benchProject, 'tsconfig.json'),
  ]) {
    log?.(`tsc -p ${pkg}`);
    runPlainNode([tsc, '-p', pkg], process.env);
  }
}

/** The environment of a measured process: no loader or export condition inherited. */
export function plainEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...env } = process.env;
  return { ...env, ...extra };
}

export function runPlainNode(args: string[], env: NodeJS.ProcessEnv = plainEnvironment()): void {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) throw new Error(`\`node ${args.join(' ')}\` failed`);
}
