import { loadavg } from 'node:os';
import { createRecoveryRuntime, decideRecovery, deriveIdempotencyKey } from '@recourse/core';
import { APICallError } from 'ai';
import {
  bytesPerCall,
  median,
  nsPerAsyncCall,
  nsPerSyncCall,
  readSink,
  retainedBytesPerCall,
} from './measure.js';
import { caseNames, overheadCases } from './overhead-cases.js';

export interface OverheadRow {
  name: string;
  nsPerCall: number;
  /** Nanoseconds above the bare tool of the same kind (read or write). */
  overheadNs?: number | undefined;
  /** Against the bare tool of the same kind, or the bare function call for a path; none for a sync case. */
  ratio?: number | undefined;
  ratioTo?: string | undefined;
  /** Reads only: against cockatiel's and p-retry's wrapper of the same read. */
  ratioToCockatiel?: number | undefined;
  ratioToPRetry?: number | undefined;
  bytesPerCall?: number | undefined;
  retainedBytesPerCall?: number | undefined;
}

/** The lead's two targets, as measured: value ≤ goal is met. */
export interface OverheadGoal {
  name: string;
  value: number;
  goal: number;
  numeratorNs: number;
  denominatorNs: number;
}

export interface OverheadResult {
  iterations: number;
  rounds: number;
  /** What was measured: the built packages under plain `node`, never the TypeScript sources. */
  build: { node: string; command: string };
  /** The machine's 1-minute load average before and after: other work on the cores inflates every figure. */
  loadAverage: { before: number; after: number };
  calls: OverheadRow[];
  goals: OverheadGoal[];
  paths: OverheadRow[];
}

export interface OverheadOptions {
  iterations: number;
  rounds: number;
  command: string;
  log?: ((line: string) => void) | undefined;
}

/** Interleaved rounds (every case once per round), median per case; same process and run. */
export async function runOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const { iterations, rounds } = options;
  const loadBefore = loadavg()[0] ?? 0;
  const samples = new Map<string, number[]>(overheadCases.map((c) => [c.name, []]));
  const time = async (c: (typeof overheadCases)[number], n: number) =>
    c.sync ? nsPerSyncCall(c.prepare(), n * 10) : nsPerAsyncCall(c.prepare(), n);
  for (const c of overheadCases) await time(c, Math.min(iterations, 5_000));
  for (let round = 0; round < rounds; round++) {
    for (const c of overheadCases) samples.get(c.name)!.push(await time(c, iterations));
    options.log?.(`overhead: round ${round + 1}/${rounds}`);
  }
  readSink();
  const ns = (name: string) => median(samples.get(name) ?? []);
  const calls: OverheadRow[] = [];
  for (const c of overheadCases) {
    const write = c.name.includes('write') || c.name === caseNames.ledgerFloor;
    const bare = write ? caseNames.bareWrite : caseNames.bareRead;
    const row: OverheadRow = {
      name: c.name,
      nsPerCall: round2(ns(c.name)),
      bytesPerCall: await bytesPerCall(c.prepare()),
      retainedBytesPerCall: await retainedBytesPerCall(c.prepare),
    };
    if (!c.sync) {
      row.ratio = round2(ns(c.name) / ns(bare));
      row.ratioTo = bare;
    }
    if (!c.sync && c.name !== bare) row.overheadNs = Math.round(ns(c.name) - ns(bare));
    if (!write && !c.sync) {
      row.ratioToCockatiel = round2(ns(c.name) / ns(caseNames.cockatiel));
      row.ratioToPRetry = round2(ns(c.name) / ns(caseNames.pRetry));
    }
    calls.push(row);
    options.log?.(
      `overhead: ${c.name} ${row.nsPerCall} ns, ${row.bytesPerCall} B allocated, ${row.retainedBytesPerCall} B retained per call`,
    );
  }
  const readOverhead = ns(caseNames.recourseRead) - ns(caseNames.bareRead);
  const cockatielOverhead = ns(caseNames.cockatiel) - ns(caseNames.bareRead);
  const writeOverhead = ns(caseNames.recourseWrite) - ns(caseNames.bareWrite);
  const sha256 = ns(caseNames.sha256);
  const goals: OverheadGoal[] = [
    {
      name: 'recourse read ÷ cockatiel retry read (issue #24)',
      value: round2(ns(caseNames.recourseRead) / ns(caseNames.cockatiel)),
      goal: 1.5,
      numeratorNs: Math.round(ns(caseNames.recourseRead)),
      denominatorNs: Math.round(ns(caseNames.cockatiel)),
    },
    {
      name: 'recourse write (memory ledger) ÷ the in-process floor of a write (issue #24)',
      value: round2(ns(caseNames.recourseWrite) / ns(caseNames.writeFloor)),
      goal: 3,
      numeratorNs: Math.round(ns(caseNames.recourseWrite)),
      denominatorNs: Math.round(ns(caseNames.writeFloor)),
    },
    {
      name: 'recourse read overhead ÷ cockatiel retry overhead',
      value: round2(readOverhead / cockatielOverhead),
      goal: 1,
      numeratorNs: Math.round(readOverhead),
      denominatorNs: Math.round(cockatielOverhead),
    },
    {
      name: 'recourse write (memory ledger) overhead ÷ one sha256 of the key material',
      value: round2(writeOverhead / sha256),
      goal: 2,
      numeratorNs: Math.round(writeOverhead),
      denominatorNs: round2(sha256),
    },
  ];
  const result: OverheadResult = {
    iterations,
    rounds,
    build: { node: process.versions.node, command: options.command },
    loadAverage: { before: round2(loadBefore), after: 0 },
    calls,
    goals,
    paths: measurePaths(iterations * 5, rounds),
  };
  result.loadAverage.after = round2(loadavg()[0] ?? 0);
  return result;
}

/** The decision path and key derivation, against a bare function call in the same loop. */
function measurePaths(iterations: number, rounds: number): OverheadRow[] {
  const runtime = createRecoveryRuntime({ runId: 'bench-run' });
  const error = new APICallError({
    message: 'Service Unavailable (503) for orders/lookup',
    url: 'https://downstream.test/orders/lookup',
    requestBodyValues: {},
    statusCode: 503,
    responseHeaders: { 'retry-after': '2' },
    isRetryable: true,
  });
  const input = { paymentId: 'p-42', amount: 1999, currency: 'EUR', reason: 'duplicate charge' };
  const bare = (i: number) => i + 1;
  const decide = () => {
    const classification = runtime.classify(error);
    return decideRecovery({
      tool: 'lookup_order',
      failureClass: classification.failureClass,
      sideEffects: false,
      attempts: 1,
      repairAttempts: 0,
      retryAfterMs: classification.retryAfterMs,
    });
  };
  const key = () => deriveIdempotencyKey({ runId: 'run-1842', toolName: 'refund_payment', input });
  const cases = { bare, decide, key };
  const samples = { bare: [] as number[], decide: [] as number[], key: [] as number[] };
  for (let round = 0; round < rounds + 1; round++) {
    for (const [name, fn] of Object.entries(cases)) {
      const value = nsPerSyncCall(fn, name === 'bare' ? iterations * 10 : iterations);
      if (round > 0) samples[name as keyof typeof samples].push(value); // round 0 warms up
    }
  }
  readSink();
  const bareNs = median(samples.bare);
  const row = (name: string, values: number[]): OverheadRow => ({
    name,
    nsPerCall: round2(median(values)),
    ratio: Math.round(median(values) / bareNs),
    ratioTo: 'bare function call',
  });
  return [
    { ...row('bare function call', samples.bare), ratio: 1 },
    row('classify + decideRecovery (503 with retry-after)', samples.decide),
    row('deriveIdempotencyKey', samples.key),
  ];
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
