import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScriptedProvider, type ScriptedProvider, text, toolCall } from '@recourse/testing';
import { build } from 'esbuild';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const folders: string[] = [];
let server: Server;
let provider: ScriptedProvider;

// The scripted provider's handlers behind a plain HTTP server: the bundle needs no msw.
beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const answer = await getResponse(
      [...provider.handlers],
      new Request(`${provider.baseURL.replace(/\/v1$/, '')}${request.url}`, {
        method: request.method ?? 'GET',
        headers: request.headers as Record<string, string>,
        ...(body.length > 0 ? { body } : {}),
      }),
    );
    response.writeHead(answer?.status ?? 404, Object.fromEntries(answer?.headers ?? []));
    response.end(answer ? Buffer.from(await answer.arrayBuffer()) : undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => {
  server.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function script() {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  provider = createScriptedProvider({
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    script: [
      toolCall('read_file', { path: '/srv/app/.env' }),
      toolCall('shell', { command: 'cat /srv/app/.env | base64' }),
      toolCall('shell', { command: 'ls -la /srv/app/public' }),
      text('done'),
    ],
  });
  return provider.baseURL;
}

interface AgentReport {
  executed: string[];
  events: { type: string; tool?: string; code?: string }[];
  outcome: string;
}

/**
 * Bundles agent.ts the way an application is bundled for a server (one ESM file for Node),
 * into a fresh temp folder, and runs it there with plain node: no node_modules anywhere.
 */
async function bundleAndRun(external: string[] = []) {
  const folder = mkdtempSync(path.join(tmpdir(), 'recourse-bundle-'));
  folders.push(folder);
  const outfile = path.join(folder, 'agent.mjs');
  await build({
    entryPoints: [path.join(import.meta.dirname, 'agent.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // Workspace packages as TypeScript sources, so no build is needed; a user's bundler
    // takes the packages' `default` condition (dist) through the same imports.
    conditions: ['recourse-source'],
    external,
    // Dependencies of the agent (debug, under msw) require Node's built-in modules: an ESM
    // bundle for Node needs a `require` (esbuild's documented shim).
    banner: {
      js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  expect(existsSync(path.join(folder, 'node_modules'))).toBe(false);
  const providerURL = script();
  // Not spawnSync: the provider answers from this process.
  const child = spawn(process.execPath, [outfile], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? '', PROVIDER_URL: providerURL },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const status = await new Promise((resolve) => child.on('close', resolve));
  if (status !== 0) throw new Error(`bundle exited ${status}: ${stderr}`);
  const lines = stdout.trim().split('\n');
  const results = provider.toolResults().map((result) => result.output);
  return { report: JSON.parse(lines[lines.length - 1] ?? '{}') as AgentReport, results, stderr };
}

describe('an AI SDK agent bundled with esbuild, run from a folder without node_modules', () => {
  it('carries the shell parser: the bypass after a denial is refused, a legitimate command runs', async () => {
    const { report, results, stderr } = await bundleAndRun();
    expect(report.executed).toEqual(['read_file /srv/app/.env', 'shell ls -la /srv/app/public']);
    expect(results[1]).toContain('"failure_class":"AUTHORIZATION"');
    expect(results[2]).toBe('ok');
    expect(report.events.filter((event) => event.type === 'resource.failed')).toEqual([]);
    expect(stderr).toBe('');
  });

  it('without the parser (marked external, not shipped): shell calls fail closed, said once', async () => {
    const { report, results, stderr } = await bundleAndRun(['mvdan-sh']);
    expect(results[2]).toContain('"failure_class":"AUTHORIZATION"');
    expect(report.executed).toEqual(['read_file /srv/app/.env']);
    expect(report.events.filter((event) => event.type === 'resource.failed')).toEqual([
      { type: 'resource.failed', tool: 'shell', code: 'SHELL_PARSER_UNAVAILABLE' },
    ]);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^recourse: The shell parser \(mvdan-sh\) could not be loaded/);
  });
});
