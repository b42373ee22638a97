// A worker process: one agent run's tools over the shared ledger, driven without a model.
// Started by spawn-worker.ts with its config in an environment variable; talks over IPC.
import type { CompensationReport } from '@recourse/core';
import { reportInFlightClaims } from './in-flight-claims.js';
import type { CallReport, ParentMessage, WorkerConfig, WorkerMessage } from './protocol.js';
import { configVariable } from './protocol.js';
import { openLedger } from './stores.js';
import { createWorkerRun, type WorkerHooks, type WorkerRun } from './worker-tools.js';

const config = JSON.parse(process.env[configVariable] ?? '{}') as WorkerConfig;
const send = (message: WorkerMessage) =>
  new Promise<void>((resolve, reject) =>
    process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
/** Resolves at the parent's next message of `type` (listen before asking for it). */
function nextMessage(type: ParentMessage['type']): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: ParentMessage) => {
      if (message.type !== type) return;
      process.off('message', listener);
      resolve();
    };
    process.on('message', listener);
  });
}

const store = openLedger(config.store, config.leaseMs);
// Compensating together, or taking over from a crashed worker: the parent learns when this
// worker waits on the other one's claim.
const ledger =
  config.scenario === 'undo-together' || config.reportInFlight
    ? reportInFlightClaims(
        store,
        (key) => config.reportInFlight === true || key.endsWith(':compensate'),
        (key) => void send({ type: 'claim-waiting', key }),
      )
    : store;
const hooks: WorkerHooks = {};
if (config.scenario === 'crash-mid-undo') hooks.afterUndo = () => blockUntilKilled();
if (config.scenario === 'undo-together') {
  hooks.afterUndo = async (undo) => {
    const resumed = nextMessage('resume');
    await send({ type: 'undo-applied', ...undo });
    await resumed;
  };
}
const run = createWorkerRun(config, ledger, hooks);
let compensation: CompensationReport | undefined;

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

/** Two writes of a saga, the DNS record pointing at the VM. */
async function provision(w: WorkerRun): Promise<CallReport[]> {
  return [
    await w.call('create_vm', { name: 'vm-1' }),
    await w.call('configure_dns', { host: 'vm-1.example.test', vm: 'vm-1' }),
  ];
}

async function provisionAndUndo(w: WorkerRun): Promise<CallReport[]> {
  const calls = await provision(w);
  compensation = await w.recovery.compensate();
  return calls;
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
  'provision-and-undo': provisionAndUndo,
  'undo-together': async (w) => {
    const calls = await provision(w);
    const told = nextMessage('compensate');
    await send({ type: 'provisioned', calls });
    await told;
    compensation = await w.recovery.compensate();
    return calls;
  },
  // The hook stops it inside the first undo (the DNS record's: newest first).
  'crash-mid-undo': provisionAndUndo,
};

const go = nextMessage('go');
await send({ type: 'ready' });
await go;
const calls = await scenarios[config.scenario](run);
await send({
  type: 'finished',
  calls,
  events: run.events,
  executions: run.executions(),
  outcome: run.recovery.outcome(),
  compensation,
});
await ledger.close?.();
process.disconnect();
