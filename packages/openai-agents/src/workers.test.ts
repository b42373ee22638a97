import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import type { RefundWorkerConfig, RefundWorkerMessage } from './test-support/refund-worker.js';

const postgresUrl = process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const workerScript = fileURLToPath(new URL('./test-support/refund-worker.ts', import.meta.url));
const table = `agents_workers_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${table}, ${table}_repairs, ${table}_facts`);
  await client.end();
});

/** A worker process and the messages it sent, in order. */
function startWorker(config: RefundWorkerConfig) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=recourse-source', workerScript],
    {
      cwd: repositoryRoot,
      env: { ...process.env, RECOURSE_REFUND_WORKER: JSON.stringify(config) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const messages: RefundWorkerMessage[] = [];
  const waiters: (() => void)[] = [];
  child.on('message', (message: RefundWorkerMessage) => {
    messages.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const waitFor = async <T extends RefundWorkerMessage['type']>(type: T) => {
    for (;;) {
      const found = messages.find((message) => message.type === type);
      if (found) return found as Extract<RefundWorkerMessage, { type: T }>;
      const woken = new Promise<void>((resolve) => waiters.push(resolve));
      await Promise.race([
        woken,
        closed.then(() => Promise.reject(new Error(`worker exited: ${stderr}`))),
      ]);
    }
  };
  return { child, waitFor };
}

it('two worker processes of one run on one PostgreSQL ledger, each through the real run(): one refund', async () => {
  // The payments service both workers reach: it holds the first refund's response until the
  // other worker has found that refund's claim in flight, so the two really overlap.
  const refunds: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const payments = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', async () => {
      refunds.push(String(request.headers['idempotency-key']));
      await held;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ status: 'refunded', ...(JSON.parse(body) as object) }));
    });
  });
  await new Promise<void>((resolve) => payments.listen(0, '127.0.0.1', resolve));
  const { port } = payments.address() as AddressInfo;
  const config = { payments: `http://127.0.0.1:${port}`, connectionString: postgresUrl, table };
  try {
    const workers = [startWorker(config), startWorker(config)];
    await Promise.all(workers.map((worker) => worker.waitFor('ready')));
    for (const worker of workers) worker.child.send({ type: 'go' });
    await Promise.any(workers.map((worker) => worker.waitFor('in-flight')));
    release();
    const reports = await Promise.all(workers.map((worker) => worker.waitFor('finished')));

    expect(refunds).toEqual([expect.stringMatching(/^run-workers:refund_payment:/)]);
    expect(reports.map((report) => report.refundRequests).sort()).toEqual([0, 1]);
    expect(reports.map((report) => report.status)).toEqual(['COMPLETED', 'COMPLETED']);
    // Both models read the same refund: the duplicate got the stored result.
    expect(new Set(reports.map((report) => report.output)).size).toBe(1);
    expect(reports[0]?.output).toContain('refunded');
  } finally {
    payments.close();
  }
}, 120_000); // two Node processes loading the SDK through tsx: ~13 s each to start here
