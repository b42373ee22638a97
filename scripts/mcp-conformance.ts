// The MCP conformance suite's server scenarios (@modelcontextprotocol/conformance), over
// streamable HTTP, against @modelcontextprotocol/server-everything directly and through
// recourse-mcp, both at once. Prints both tallies and fails when they differ: the proxy
// must change nothing a conforming client can see.
//
// Usage: pnpm conformance:mcp   (runs the built proxy, packages/mcp/dist/cli.js, when it
// exists — CI builds it in release:dry — and its TypeScript sources otherwise)
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function start(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<void> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`)));
  });
}

interface Tally {
  lines: string[];
  total: string;
}

function runSuite(url: string): Promise<Tally> {
  const cli = path.join(
    path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
    'dist',
    'index.js',
  );
  const child = spawn(process.execPath, [cli, 'server', '--url', url], { cwd: root });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once('exit', () => {
      const lines = output.split('\n').filter((line) => /^[✓✗] /.test(line));
      const total = output.split('\n').find((line) => line.startsWith('Total:')) ?? 'no total';
      resolve({ lines, total });
    });
  });
}

/**
 * The suite's "Total: N passed, M failed" in words of our own: printed as it is, CI output
 * would carry a closing line that reads as this repository's own test tally.
 */
function tallyText(total: string): string {
  const counts = /(\d+) passed, (\d+) failed/.exec(total);
  if (!counts) return total;
  const [passed, failed] = [Number(counts[1]), Number(counts[2])];
  return `${passed} of ${passed + failed} scenarios pass, the other ${failed} do not`;
}

async function main(): Promise<number> {
  const [upstreamPort, proxyPort] = [await freePort(), await freePort()];
  const everything = require.resolve('@modelcontextprotocol/server-everything/package.json');
  await start(
    [path.join(path.dirname(everything), 'dist', 'index.js'), 'streamableHttp'],
    { PORT: String(upstreamPort) },
    /listening|running|port/i,
  );
  const built = path.join(root, 'packages', 'mcp', 'dist', 'cli.js');
  const proxy = existsSync(built)
    ? [built]
    : [
        '--conditions=recourse-source',
        '--import',
        'tsx',
        path.join(root, 'packages', 'mcp', 'src', 'cli.ts'),
      ];
  const ledger = path.join(mkdtempSync(path.join(os.tmpdir(), 'recourse-mcp-conf-')), 'l.sqlite');
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/mcp`;
  await start(
    [...proxy, '--ledger', ledger, '--listen', `127.0.0.1:${proxyPort}`, '--upstream', upstreamUrl],
    {},
    /serving/,
  );
  const [direct, proxied] = await Promise.all([
    runSuite(upstreamUrl),
    runSuite(`http://127.0.0.1:${proxyPort}/mcp`),
  ]);
  console.log(`MCP conformance, server scenarios (server-everything over streamable HTTP)`);
  console.log(`  directly:             ${tallyText(direct.total)}`);
  console.log(`  through recourse-mcp: ${tallyText(proxied.total)}`);
  const differ = direct.lines.filter((line, index) => proxied.lines[index] !== line);
  if (direct.lines.length === 0 || differ.length > 0 || direct.total !== proxied.total) {
    console.log('  the results differ:');
    for (const [index, line] of direct.lines.entries()) {
      if (proxied.lines[index] !== line)
        console.log(`    direct:  ${line}\n    proxied: ${proxied.lines[index]}`);
    }
    return 1;
  }
  console.log(`  every scenario's result is equal (${direct.lines.length} scenarios)`);
  return 0;
}

// A server that never says it is ready must not hold CI: the whole run has 3 minutes.
const limit = setTimeout(() => {
  console.error('mcp-conformance: no result within 180 s');
  for (const child of children) child.kill();
  process.exit(1);
}, 180_000);
limit.unref();

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill();
  });
