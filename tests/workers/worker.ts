// A worker process: one agent run's tools over the shared ledger, driven without a model.
// Started by spawn-worker.ts with its config in an environment variable; talks over IPC.
import type { CallReport, ParentMessage, WorkerConfig, WorkerMessage } from './protocol.js';
import { configVariable } from './protocol.js';
import { openLedger } from './stores.js';
import { createWorkerRun, type WorkerRun } from './worker-tools.js';

const config = JSON.parse(process.env[configVariable] ?? '{}') as WorkerConfig;
const send = (message: WorkerMessage) =>
  new Promise<void>((resolve, reject) =>
    process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
const ledger = openLedger(config.store, config.leaseMs);
const run = createWorkerRun(config, ledger);

/** Tells the parent, then never returns: the parent kills this process with SIGKILL. */
async function blockUntilKilled(calls: CallReport[] = []): Promise<never> {
  setInterval(() => {}, 60_000);
  await send({ type: 'blocking', calls });
  return new Promise<never>(() => {});
}

async function hammer(w: WorkerRun): Promise<CallReport[]> {
  const count = config.operations ?? 30;
  // Each worker starts at a different operation, so that the workers collide all over the set.
  const queue = Array.from({ length: count }, (_, i) => (i + config.worker * 7) % count);
  const reports: CallReport[] = [];
  const lane = async () => {
    for (let op = queue.shift(); op !== undefined; op = queue.shift())
      reports.push(await w.call('transfer', { op, amount: 100 + op }));
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  return reports;
}

const scenarios: Record<WorkerConfig['scenario'], (w: WorkerRun) => Promise<CallReport[]>> = {
  hammer,
  'crash-mid-write': async (w) => [
    await w.call('transfer', { op: 1, amount: 500 }, () => blockUntilKilled()),
  ],
  'take-over': async (w) => [
    await w.call('transfer', { op: 1, amount: 500 }),
    // A second ask from the model, with a new tool-call id: the stored result, no new write.
    await w.call('transfer', { op: 1, amount: 500 }),
  ],
  'spend-repairs': async (w) => {
    const reports: CallReport[] = [];
    for (let i = 0; i < 2; i++) reports.push(await w.call('submit_form', { email: 'x@bad' }));
    return blockUntilKilled(reports);
  },
  'repeat-poison': async (w) => [
    await w.call('submit_form', { email: 'y@bad' }),
    await w.call('submit_form', { email: 'x@bad' }),
  ],
  'get-denied': async (w) => {
    return blockUntilKilled([await w.call('read_repo', { repo: 'acme/secret' })]);
  },
  'reach-denied': async (w) => [
    await w.call('read_repo', { repo: 'acme/secret' }),
    await w.call('shell', { command: 'git clone https://github.com/ACME/Secret.git' }),
    await w.call('read_repo', { repo: 'acme/public' }),
  ],
};

const go = new Promise<void>((resolve) => {
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'go') resolve();
  });
});
await send({ type: 'ready' });
await go;
const calls = await scenarios[config.scenario](run);
await send({
  type: 'finished',
  calls,
  events: run.events,
  executions: run.executions(),
  outcome: run.recovery.outcome(),
  finishedAt: Date.now(),
});
await ledger.close?.();
process.disconnect();
