import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHarness } from '../../test-support/runtime-harness.js';

const coreDirectory = fileURLToPath(new URL('../../', import.meta.url));

// A fresh Node on the TypeScript sources (no build): records every module it resolves,
// uses the core without a shell line, then reads one. With `hide`, the resolution of
// `mvdan-sh` fails the way it does where the package is not installed.
const probe = (hide: boolean) => `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    if (${hide} && specifier === 'mvdan-sh') {
      throw Object.assign(new Error("Cannot find module 'mvdan-sh'"), { code: 'MODULE_NOT_FOUND' });
    }
    const result = next(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
const core = await import('@recourse/core');
const parser = (url) => url.includes('/mvdan-sh/');
core.urlResource('https://github.com/acme/secret');
core.createScopeGuard({ deny: ['https://github.com/acme/secret'] }).check(['https://github.com/acme/public']);
const before = resolved.filter(parser);
const read = () => {
  try {
    return core.shellResources('git clone https://github.com/ACME/Secret', { cwd: '/work' });
  } catch (error) {
    return { error: error.name, code: error.code, recourse: core.RecourseError.isInstance(error),
             unavailable: core.ShellParserUnavailableError.isInstance(error) };
  }
};
const reach = [read(), read()];
const after = resolved.filter(parser);
console.log(JSON.stringify({ before, after, reach }));
`;

function runProbe(hide: boolean) {
  const child = spawnSync(
    process.execPath,
    [
      '--conditions=recourse-source',
      '--import',
      'tsx',
      '--input-type=module',
      '--eval',
      probe(hide),
    ],
    { cwd: coreDirectory, encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`probe exited ${child.status}: ${child.stderr}`);
  const lines = child.stdout.trim().split('\n');
  return {
    ...(JSON.parse(lines[lines.length - 1] ?? '{}') as {
      before: string[];
      after: string[];
      reach: unknown[];
    }),
    stderr: child.stderr,
  };
}

describe('the shell parser', () => {
  it('is loaded on the first shell line, not when the core is imported', () => {
    const result = runProbe(false);
    expect(result.before).toEqual([]);
    expect(result.after.some((url) => url.includes('/mvdan-sh/'))).toBe(true);
    expect(result.reach).toEqual([
      ['https://github.com/acme/secret', 'file:///work/Secret'],
      ['https://github.com/acme/secret', 'file:///work/Secret'],
    ]);
    expect(result.stderr).toBe('');
  });

  it('that cannot be loaded is a ShellParserUnavailableError, said once on the console', () => {
    const result = runProbe(true);
    const unavailable = {
      error: 'ShellParserUnavailableError',
      code: 'SHELL_PARSER_UNAVAILABLE',
      recourse: true,
      unavailable: true,
    };
    expect(result.reach).toEqual([unavailable, unavailable]);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^recourse: The shell parser \(mvdan-sh\) could not be loaded/);
    expect(lines[0]).toContain('npm i mvdan-sh');
    expect(lines[0]).toContain("Cannot find module 'mvdan-sh'");
  });
});

describe('a resource function that throws', () => {
  it('reaches everything after a denial, and the run is told once per tool', async () => {
    const h = createHarness({
      onDenial: 'continue',
      policies: {
        read_file: {
          sideEffects: false,
          resource: (input) => `file://${(input as { p: string }).p}`,
        },
        shell: {
          sideEffects: false,
          resource: () => {
            throw new TypeError('no parser for you');
          },
        },
      },
    });
    const denied = await h.run('read_file', { p: '/srv/.env' }, () => {
      throw Object.assign(new Error('forbidden'), { status: 403 });
    });
    expect(denied.ok).toBe(false);
    let ran = 0;
    for (const command of ['ls', 'pwd']) {
      const result = await h.run('shell', { command }, () => ++ran);
      expect(result).toMatchObject({ ok: false, contract: { code: 'DENIED_EARLIER' } });
    }
    expect(ran).toBe(0);
    const failed = h.events.filter((event) => event.type === 'resource.failed');
    expect(failed).toEqual([
      expect.objectContaining({ tool: 'shell', code: 'TypeError', message: 'no parser for you' }),
    ]);
  });
});
