import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const coreDirectory = fileURLToPath(new URL('../../', import.meta.url));
const shellDirectory = fileURLToPath(new URL('../../../shell/', import.meta.url));

// A fresh Node records every module it resolves (imports and requires alike), uses the core
// without a shell line, then reads one. Printed as JSON on the last line.
const probe = `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
const core = await import('@recourse/core');
const shell = (url) => url.includes('/mvdan-sh/') || url.startsWith(${JSON.stringify(`file://${shellDirectory}`)});
core.urlResource('https://github.com/acme/secret');
core.pathResource('/srv/data/secrets/prod.env');
core.createScopeGuard({ deny: ['https://github.com/acme/secret'] }).check(['https://github.com/acme/public']);
const before = resolved.filter(shell);
const reach = core.shellResources('git clone https://github.com/ACME/Secret', { cwd: '/work' });
const after = resolved.filter(shell);
const entries = [${JSON.stringify(`file://${coreDirectory}src/index.ts`)}, ${JSON.stringify(`file://${coreDirectory}dist/index.js`)}];
const cores = [...new Set(resolved.filter((url) => entries.includes(url)))];
console.log(JSON.stringify({ before, after, reach, cores }));
`;

interface ProbeResult {
  before: string[];
  after: string[];
  reach: string[];
  cores: string[];
  stderr: string;
}

function runProbe(nodeArguments: readonly string[]): ProbeResult {
  // The probe runs inside the core's directory, so `@recourse/core` is the package itself.
  const child = spawnSync(
    process.execPath,
    [...nodeArguments, '--input-type=module', '--eval', probe],
    { cwd: coreDirectory, encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`probe exited ${child.status}: ${child.stderr}`);
  const lines = child.stdout.trim().split('\n');
  return { ...(JSON.parse(lines[lines.length - 1] ?? '{}') as ProbeResult), stderr: child.stderr };
}

function expectLoadedOnFirstCall(result: ProbeResult, entry: string): void {
  expect(result.before).toEqual([]);
  expect(result.after).toContain(`file://${shellDirectory}${entry}`);
  expect(result.after.some((url) => url.includes('/mvdan-sh/'))).toBe(true);
  expect(result.reach).toEqual(['https://github.com/acme/secret', 'file:///work/Secret']);
  // The shell package imports the very core instance the program imported.
  expect(result.cores).toHaveLength(1);
  expect(result.stderr).not.toMatch(/ExperimentalWarning|require\(\) of ES Module/);
}

describe('shellResources loads @recourse/shell on first use', () => {
  it('from the TypeScript sources (the recourse-source condition, through tsx)', () => {
    const result = runProbe(['--conditions=recourse-source', '--import', 'tsx']);
    expectLoadedOnFirstCall(result, 'src/index.ts');
  });

  it('from the built packages (dist, no condition, no loader)', { timeout: 120_000 }, () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    for (const directory of [coreDirectory, shellDirectory]) {
      const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
        cwd: directory,
        encoding: 'utf8',
      });
      expect(build.stdout + build.stderr, `build of ${directory}`).toBe('');
    }
    const result = runProbe([]);
    expectLoadedOnFirstCall(result, 'dist/index.js');
    expect(result.cores).toEqual([`file://${coreDirectory}dist/index.js`]);
  });
});
