import type { StrategyMetrics } from '../chaos/chaos-metrics.js';
import type { FaultMix } from '../chaos/fault-schedule.js';
import type { PerFaultRow } from '../chaos/per-fault.js';
import type { OverheadResult } from '../overhead/run-overhead.js';

export interface ChaosSize {
  jobs: number;
  rate: number;
  metrics: StrategyMetrics[];
  /** Single-fault jobs by fault, every strategy's correct completions. */
  perFault?: PerFaultRow[] | undefined;
}

/** The simulated agent every strategy shares. */
export interface AgentSettings {
  /** Extra turns per step (repair, re-read, re-issue). */
  turns: number;
  /** Virtual time of a model round trip before each extra turn. */
  modelTurnMs: number;
  /** Per-job deadline from arrival, the same for every strategy. */
  deadlineMs: number;
}

/** Everything a run measured: written to `results.json`, rendered to the README and charts. */
export interface BenchResults {
  generatedAt: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  seed: number;
  quick: boolean;
  faultMix: FaultMix;
  agent: AgentSettings;
  sqliteDirectory: string;
  chaos: ChaosSize[];
  overhead: OverheadResult;
}

export function sizeLabel(size: Pick<ChaosSize, 'jobs' | 'rate'>): string {
  return `${size.jobs.toLocaleString('en-US')} jobs @ ${Math.round(size.rate * 100)}%`;
}

export function largestSize(results: BenchResults): ChaosSize {
  return results.chaos.reduce((a, b) => (b.jobs > a.jobs ? b : a));
}

/** The recourse row the report explains: the default configuration (memory ledger, budget on). */
export function defaultRecourse(size: ChaosSize): StrategyMetrics | undefined {
  return size.metrics.find((m) => m.strategy === 'recourse (memory)');
}
