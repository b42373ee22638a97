import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { SqliteLedger } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-sqlite-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const ledgerModule = new URL('./index.ts', import.meta.url).href;

// Each worker opens the shared file, says ready, waits for "go <time>" on stdin, and from
// that time on claims every key, completes what it acquired, adds a repair and a shared
// denial after each key, and prints what it saw.
const workerScript = `
import { createInterface } from 'node:readline';
const [modulePath, dbPath, worker, keyCount] = process.argv.slice(2);
const { SqliteLedger } = await import(modulePath);
const ledger = new SqliteLedger({ path: dbPath });
process.stdout.write('ready\\n');
const lines = createInterface({ input: process.stdin });
let startAt = 0;
for await (const line of lines) if (line.startsWith('go ')) { startAt = Number(line.slice(3)); break; }
lines.close();
// Start together on the wall clock: stdin reaches the workers milliseconds apart.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
const count = Number(keyCount);
const seen = [];
// Each worker starts at a different key, so that the workers collide all over the set.
for (let i = 0; i < count; i++) {
  const key = 'op:' + ((i + Number(worker) * 3) % count);
  const claim = await ledger.claim({ key, payloadHash: 'h' });
  // Hold the claim a moment, as a real write would, so that other workers see it in flight.
  await new Promise((resolve) => setTimeout(resolve, 1));
  if (claim.status === 'acquired') {
    await ledger.complete(key, claim.token, { json: JSON.stringify({ worker: Number(worker) }) });
  }
  seen.push([key, claim.status]);
  await ledger.addRepair('run', 'fp');
  const denial = { resource: key, tool: 'api', reason: 'HTTP_403', at: Number(worker) };
  if (await ledger.addFact('run', 'denial', key, denial)) seen.push([key, 'denied']);
}
await ledger.close();
process.stdout.write(JSON.stringify(seen) + '\\n');
`;

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  done: Promise<[string, string][]>;
}

function startWorker(script: string, path: string, worker: number, keyCount: number): Worker {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=recourse-source',
      script,
      ledgerModule,
      path,
      String(worker),
      String(keyCount),
    ],
    { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) onReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<[string, string][]>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`worker ${worker} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout.split('\n').filter(Boolean).at(-1) ?? '[]'));
    });
  });
  // A worker that dies before saying ready fails the test through `done`.
  return { child, ready: Promise.race([ready, done.then(() => {})]), done };
}

it('executes each key once, and counts and records facts exactly, across 8 processes at once', async () => {
  const script = join(dir, 'worker.mjs');
  writeFileSync(script, workerScript);
  const path = join(dir, 'shared.db');
  const keyCount = 20;
  const workers = Array.from({ length: 8 }, (_, i) => startWorker(script, path, i, keyCount));
  await Promise.all(workers.map((w) => w.ready));
  const startAt = Date.now() + 100;
  for (const w of workers) w.child.stdin?.end(`go ${startAt}\n`);
  const seen = await Promise.all(workers.map((w) => w.done));

  const ledger = new SqliteLedger({ path });
  for (let i = 0; i < keyCount; i++) {
    const key = `op:${i}`;
    const acquirers = seen.flatMap((statuses, worker) =>
      statuses.some(([k, status]) => k === key && status === 'acquired') ? [worker] : [],
    );
    expect(acquirers, key).toHaveLength(1);
    // Everyone else saw the winner's claim, in flight or completed, never a second acquire.
    const others = seen.flatMap((s) =>
      s.filter(([k, status]) => k === key && status !== 'acquired' && status !== 'denied'),
    );
    expect(others.every(([, status]) => status === 'in_flight' || status === 'completed')).toBe(
      true,
    );
    expect(await ledger.get(key)).toMatchObject({
      state: 'completed',
      result: { json: JSON.stringify({ worker: acquirers[0] }) },
    });
    // Of 8 processes adding the same fact, exactly one was told it was new.
    const deniers = seen.flatMap((statuses, worker) =>
      statuses.some(([k, status]) => k === key && status === 'denied') ? [worker] : [],
    );
    expect(deniers, key).toHaveLength(1);
  }
  // Every process sees every other's repairs and denials: none lost, none doubled.
  expect(await ledger.getRepairs('run', 'fp')).toBe(8 * keyCount);
  const denials = (await ledger.listFacts('run')).denial;
  expect(denials.map((d) => d.resource).sort()).toEqual(
    Array.from({ length: keyCount }, (_, i) => `op:${i}`).sort(),
  );
  await ledger.close();
}, 60_000);
