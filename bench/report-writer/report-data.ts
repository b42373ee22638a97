import type { StrategyMetrics } from '../chaos/chaos-metrics.js';
import type { FaultMix } from '../chaos/fault-schedule.js';
import type { OverheadResult } from '../overhead/run-overhead.js';

export interface ChaosSize {
  jobs: number;
  rate: number;
  metrics: StrategyMetrics[];
}

/** Everything a run measured: written to `results.json`, rendered to the README and charts. */
export interface BenchResults {
  generatedAt: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  seed: number;
  quick: boolean;
  faultMix: FaultMix;
  sqliteDirectory: string;
  chaos: ChaosSize[];
  overhead: OverheadResult;
}

export function sizeLabel(size: Pick<ChaosSize, 'jobs' | 'rate'>): string {
  return `${size.jobs.toLocaleString('en-US')} jobs @ ${Math.round(size.rate * 100)}%`;
}
