// The measured process of the soak benchmark, run on the build with plain
// `node --expose-gc soak-main.js <store> <runs> <output.json> <directory>`.
// One process serves `runs` runs of 20 tool calls the way a server would: a new recovery
// per request on one shared ledger, eight requests at a time, each run finished and
// dropped. It measures heap after a forced GC as finished runs pile up, what is left
// running at the end, store round trips per call kind, and the latency recourse adds.
import { writeFileSync } from 'node:fs';
import { createRecovery } from '@recourse/ai-sdk';
import { type Clock, type Ledger, systemClock } from '@recourse/core';
import { tool } from 'ai';
import { z } from 'zod';
import { countingLedger, type LedgerCallCounts } from './counting-ledger.js';
import { openSoakStore, type SoakStoreName } from './soak-stores.js';

const [storeArgument, runsArgument, output, directory] = process.argv.slice(2);
const store = storeArgument as SoakStoreName;
const runs = Number(runsArgument);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !output || !directory || !(runs > 0)) {
  throw new Error('usage: node --expose-gc soak-main.js <store> <runs> <output.json> <dir>');
}
const collect = gc;

export type CallKind = 'read' | 'write' | 'undeclared';
const callKinds: readonly CallKind[] = ['read', 'write', 'undeclared'];
// 10 reads, 6 idempotent writes, 4 tools that declare nothing: 20 calls a run.
const runPlan: readonly CallKind[] = [
  ...'rwrurwrrwurwrurwrwur'
    .split('')
    .map((c) => (c === 'r' ? 'read' : c === 'w' ? 'write' : 'undeclared')),
] as CallKind[];
const concurrency = 8;
const faultRate = 0.01;
const samples = 20;

// A seeded generator (mulberry32), so every store meets the same faults.
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Calls whose first attempt fails with a 503: the id is deleted when it fails once.
const failOnce = new Set<string>();
const unavailable = () => Object.assign(new Error('Service Unavailable'), { status: 503 });
const maybeFail = (id: string) => {
  if (failOnce.delete(id)) throw unavailable();
};
// Backoff waits (under 5 s) are skipped: the benchmark measures what recourse costs, not
// its sleeps. Longer ones (the lease renewer's tick, a third of the lease) are real.
// At the end the long ones are cut short, so that the renewer lets go of the ledger.
const longSleeps = new Set<() => void>();
const clock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal, options) {
    if (ms < 5_000) return Promise.resolve();
    const controller = new AbortController();
    const wake = () => controller.abort();
    longSleeps.add(wake);
    signal?.addEventListener('abort', wake, { once: true });
    return systemClock
      .sleep(ms, controller.signal, options)
      .catch(() => {
        if (signal?.aborted) throw signal.reason;
      })
      .finally(() => {
        longSleeps.delete(wake);
        signal?.removeEventListener('abort', wake);
      });
  },
};

const baseTools = {
  lookup_order: tool({
    description: 'Look up an order',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      maybeFail(id);
      return { id, status: 'shipped' };
    },
  }),
  refund_payment: tool({
    description: 'Refund a payment',
    inputSchema: z.object({ id: z.string(), amount: z.number() }),
    execute: async ({ id, amount }) => {
      maybeFail(id);
      return { refundId: `r-${id}`, amount };
    },
  }),
  send_note: tool({
    description: 'Send a note',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => ({ sent: id }),
  }),
};
const toolOf = { read: 'lookup_order', write: 'refund_payment', undeclared: 'send_note' } as const;
const policies = {
  lookup_order: { sideEffects: false },
  refund_payment: { sideEffects: true, idempotent: true },
};
type Execute = (input: unknown, options: object) => Promise<unknown>;
const callOptions = (id: string) => ({ toolCallId: id, messages: [], context: undefined });
const inputOf = (kind: CallKind, id: string) => (kind === 'write' ? { id, amount: 1999 } : { id });

function newRun(ledger: Ledger, runId: string) {
  const recovery = createRecovery({ runId, ledger, policies, clock, warn: false });
  const tools = recovery.tools(baseTools) as unknown as Record<string, { execute: Execute }>;
  return { recovery, tools };
}

/** One request: a new recovery, its calls one after another, the outcome read, dropped. */
async function serveRun(
  ledger: Ledger,
  runId: string,
  plan: readonly CallKind[],
  random: () => number,
  timing?: Timing,
): Promise<string> {
  const { recovery, tools } = newRun(ledger, runId);
  for (const [n, kind] of plan.entries()) {
    const id = `${runId}-${n}`;
    if (kind !== 'undeclared' && random() < faultRate) failOnce.add(id);
    const execute = tools[toolOf[kind]]!.execute;
    if (timing) {
      // The same tool bare, on an input of its own, right before: the call without recourse.
      const bare = baseTools[toolOf[kind]].execute as unknown as Execute;
      let started = performance.now();
      await bare(inputOf(kind, `bare-${id}`), callOptions(`bare-${n}`));
      timing.record(kind, 'bare', performance.now() - started);
      started = performance.now();
      await execute(inputOf(kind, id), callOptions(`call_${n}`));
      timing.record(kind, 'recourse', performance.now() - started);
    } else {
      await execute(inputOf(kind, id), callOptions(`call_${n}`));
    }
  }
  return recovery.outcome().status;
}

/** Latencies per kind, in preallocated arrays, so that recording them allocates nothing. */
class Timing {
  readonly values = new Map<string, Float64Array>();
  readonly lengths = new Map<string, number>();
  constructor(perKind: number) {
    for (const kind of callKinds)
      for (const side of ['bare', 'recourse'])
        this.values.set(`${kind}:${side}`, new Float64Array(perKind));
  }
  record(kind: CallKind, side: 'bare' | 'recourse', ms: number) {
    const name = `${kind}:${side}`;
    const length = this.lengths.get(name) ?? 0;
    const values = this.values.get(name)!;
    if (length < values.length) {
      values[length] = ms;
      this.lengths.set(name, length + 1);
    }
  }
  percentiles() {
    const result: Record<string, { p50: number; p99: number; count: number }> = {};
    for (const [name, values] of this.values) {
      const sorted = values.slice(0, this.lengths.get(name) ?? 0).sort();
      const at = (q: number) =>
        sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      result[name] = { p50: at(0.5) * 1000, p99: at(0.99) * 1000, count: sorted.length };
    }
    return result;
  }
}

async function servePool(count: number, serve: (i: number) => Promise<string>) {
  const statuses = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const status = await serve(next++);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Object.fromEntries(statuses);
}

/** Ledger calls per call of one kind: runs of 1 call and of 20, so per run and per call apart. */
async function measureRoundTrips(ledger: Ledger, tag: string) {
  const result: Record<string, { perCall: number; perRun: number; methods: LedgerCallCounts }> = {};
  const runsPerPhase = 100;
  for (const kind of callKinds) {
    const phase = async (calls: number) => {
      const counting = countingLedger(ledger);
      const random = seeded(1);
      await servePool(runsPerPhase, (i) =>
        serveRun(
          counting.ledger,
          `${tag}-rt-${kind}-${calls}-${i}`,
          Array(calls).fill(kind),
          () => random() + 1,
        ),
      );
      return counting.counts;
    };
    const one = await phase(1);
    const twenty = await phase(20);
    const total = (counts: LedgerCallCounts) => Object.values(counts).reduce((a, b) => a + b, 0);
    const perCall = (total(twenty) - total(one)) / (19 * runsPerPhase);
    const perRun = total(one) / runsPerPhase - perCall;
    const methods: LedgerCallCounts = {};
    for (const [name, n] of Object.entries(twenty)) methods[name] = n / (20 * runsPerPhase);
    result[kind] = { perCall, perRun, methods };
  }
  return result;
}

function resources() {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}
function listeners() {
  const counts: Record<string, number> = {};
  for (const name of process.eventNames()) counts[String(name)] = process.listenerCount(name);
  return counts;
}
// A run's watch of the store is closed by a FinalizationRegistry once the run is collected;
// its callbacks run in a later task, so the heap is read after a few collections and yields.
async function heapAfterGc() {
  for (let i = 0; i < 4; i++) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const baseline = { resources: resources(), listeners: listeners() };
// Held in one place only, so that dropping it at the end shows what the ledger retains.
const opened: { store?: ReturnType<typeof openSoakStore> | undefined } = {
  store: openSoakStore(store, directory),
};
const theLedger = () => opened.store!.ledger;
const tag = `soak-${process.pid}`;
const roundTrips = await measureRoundTrips(theLedger(), tag);

// Warm-up: code paths compiled and pools filled before anything is timed or sampled.
const warmRandom = seeded(7);
await servePool(200, (i) => serveRun(theLedger(), `${tag}-warm-${i}`, runPlan, warmRandom));

// Latency: one request at a time, so a call's time is its own, not its neighbours'.
const timedRuns = Math.min(1_000, Math.max(100, Math.floor(runs / 10)));
const timing = new Timing(timedRuns * 10);
const timedRandom = seeded(11);
for (let i = 0; i < timedRuns; i++)
  await serveRun(theLedger(), `${tag}-timed-${i}`, runPlan, timedRandom, timing);

// The soak: `runs` requests, eight at a time, a forced GC and a heap sample per batch.
const started = performance.now();
const random = seeded(20_261_201);
const heap: { runs: number; bytes: number }[] = [{ runs: 0, bytes: await heapAfterGc() }];
const statuses: Record<string, number> = {};
const batch = Math.max(1, Math.floor(runs / samples));
for (let done = 0; done < runs; done += batch) {
  const size = Math.min(batch, runs - done);
  const batchStatuses = await servePool(size, (i) =>
    serveRun(theLedger(), `${tag}-${done + i}`, runPlan, random),
  );
  for (const [status, n] of Object.entries(batchStatuses))
    statuses[status] = (statuses[status] ?? 0) + n;
  heap.push({ runs: done + size, bytes: await heapAfterGc() });
  process.stderr.write(`[soak] ${store}: ${done + size}/${runs} runs\n`);
}
const servedMs = performance.now() - started;

// Whatever the finished runs left running, with the store still open...
const atEnd = { resources: resources(), listeners: listeners() };
const heapWithLedger = await heapAfterGc();
// ...then what the ledger itself retains (its records), measured by letting it go.
await theLedger().close?.();
for (const wake of [...longSleeps]) wake();
const afterClose = { resources: resources(), listeners: listeners() };
await opened.store!.cleanUp();
opened.store = undefined;
const heapWithoutLedger = await heapAfterGc();

writeFileSync(
  output,
  JSON.stringify({
    store,
    runs,
    timedRuns,
    callsPerRun: runPlan.length,
    concurrency,
    faultRate,
    statuses,
    servedMs,
    heap,
    ledgerRetainedBytes: heapWithLedger - heapWithoutLedger,
    baseline,
    atEnd,
    afterClose,
    roundTrips,
    latency: timing.percentiles(),
  }),
);
