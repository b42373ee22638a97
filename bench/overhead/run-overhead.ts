import { createRecoveryRuntime, decideRecovery, deriveIdempotencyKey } from '@recourse/core';
import { httpError } from '../chaos/downstream-errors.js';
import { bytesPerCall, median, nsPerAsyncCall, nsPerSyncCall, readSink } from './measure.js';
import { overheadCases } from './overhead-cases.js';

export interface OverheadRow {
  name: string;
  nsPerCall: number;
  /** Against the bare tool of the same kind (read or write), or the bare function call. */
  ratio: number;
  ratioTo: string;
  bytesPerCall?: number | undefined;
}

export interface OverheadResult {
  iterations: number;
  rounds: number;
  calls: OverheadRow[];
  paths: OverheadRow[];
}

export interface OverheadOptions {
  iterations: number;
  rounds: number;
  log?: ((line: string) => void) | undefined;
}

/** Interleaved rounds (every case once per round), median per case; same process and run. */
export async function runOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const { iterations, rounds } = options;
  const samples = new Map<string, number[]>(overheadCases.map((c) => [c.name, []]));
  for (const c of overheadCases) await nsPerAsyncCall(c.prepare(), Math.min(iterations, 5_000));
  for (let round = 0; round < rounds; round++) {
    for (const c of overheadCases) {
      samples.get(c.name)!.push(await nsPerAsyncCall(c.prepare(), iterations));
    }
    options.log?.(`overhead: round ${round + 1}/${rounds}`);
  }
  const ns = (name: string) => median(samples.get(name) ?? []);
  const calls: OverheadRow[] = [];
  for (const c of overheadCases) {
    const baseline = c.name.includes('write') ? 'bare write tool' : 'bare read tool';
    calls.push({
      name: c.name,
      nsPerCall: Math.round(ns(c.name)),
      ratio: round2(ns(c.name) / ns(baseline)),
      ratioTo: baseline,
      bytesPerCall: await bytesPerCall(c.prepare()),
    });
  }
  return { iterations, rounds, calls, paths: measurePaths(iterations * 5, rounds) };
}

/** The decision path and key derivation, against a bare function call in the same loop. */
function measurePaths(iterations: number, rounds: number): OverheadRow[] {
  const runtime = createRecoveryRuntime({ runId: 'bench-run' });
  const error = httpError('orders/lookup', 503, { 'retry-after': '2' });
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
