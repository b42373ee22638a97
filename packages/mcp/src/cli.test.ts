import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { InvalidOptionsError } from '@recourse/core';
import { describe, expect, it } from 'vitest';
import { proxyCommand, tempDir } from '../test-support/harness.js';
import { parseCliArgs, UsageError } from './cli-args.js';
import { createRecoveryProxy } from './create-proxy.js';
import { loadConfig } from './load-config.js';
import { defaultLedgerFile } from './open-ledger.js';

describe('recourse-mcp command line', () => {
  it('--help names the default ledger file', async () => {
    const { command, args } = proxyCommand(['--help']);
    const { stdout } = await promisify(execFile)(command, args, {
      cwd: path.resolve(import.meta.dirname, '..', '..', '..'),
    });
    expect(stdout).toContain(defaultLedgerFile);
    expect(stdout).toContain('--listen <host:port>');
  });

  it('reads the upstream after --, or --upstream, and the options', () => {
    expect(
      parseCliArgs(['--trace', '--run-id', 'r1', '--', 'npx', '-y', 'server', '--flag']),
    ).toEqual({
      help: false,
      options: {
        upstream: { command: 'npx', args: ['-y', 'server', '--flag'] },
        listen: undefined,
        config: undefined,
        ledger: undefined,
        runId: 'r1',
        trace: true,
      },
    });
    const http = parseCliArgs([
      '--upstream',
      'https://mcp.example.test/mcp',
      '--listen',
      '0.0.0.0:8931',
      '--ledger',
      'postgres://db/x',
    ]);
    expect(http).toMatchObject({
      options: {
        upstream: { url: 'https://mcp.example.test/mcp' },
        listen: { host: '0.0.0.0', port: 8931 },
        ledger: 'postgres://db/x',
      },
    });
  });

  it('refuses a command line that cannot run, saying why', () => {
    expect(() => parseCliArgs([])).toThrow(UsageError);
    expect(() => parseCliArgs(['--upstream', 'x', '--', 'node'])).toThrow(/not both/);
    expect(() => parseCliArgs(['--listen', 'nowhere', '--', 'node'])).toThrow(/host:port/);
    expect(() => parseCliArgs(['--ledgr', 'x', '--', 'node'])).toThrow(UsageError);
  });
});

describe('--config', () => {
  it('loads an .mjs config that imports from @recourse/mcp', async () => {
    const here = path.join(import.meta.dirname, '..', 'test-support');
    const config = await loadConfig('recourse.config.mjs', here);
    expect(config.runId).toBe('from-config');
    expect(config.policies?.get_repo?.resource?.({ repo: 'acme/x' })).toBe(
      'https://github.com/acme/x',
    );
  });

  it('rejects a misspelt key with the key that was meant', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'recourse.config.json');
    writeFileSync(file, JSON.stringify({ policies: { write_entry: { sideEffect: true } } }));
    const error = await loadConfig(file, dir).catch((thrown: unknown) => thrown);
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect((error as InvalidOptionsError).field).toBe('policies.write_entry.sideEffect');
    expect((error as Error).message).toMatch(/did you mean "sideEffects"/);
  });

  it('rejects options a proxy does not take, naming them', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'recourse.config.json');
    writeFileSync(file, JSON.stringify({ onDenial: 'stop' }));
    await expect(loadConfig(file, dir)).rejects.toThrow(/onDenial/);
    expect(() =>
      createRecoveryProxy({ upstream: { command: 'x' }, onDenial: 'stop' } as never),
    ).toThrow(/onDenial/);
    expect(() => createRecoveryProxy({ upstream: { comand: 'x' } } as never)).toThrow(/upstream/);
  });
});
