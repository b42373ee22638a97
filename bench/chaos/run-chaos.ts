import { type StrategyMetrics, summarise } from './chaos-metrics.js';
import { Downstream } from './downstream.js';
import type { FaultMix } from './fault-schedule.js';
import { type JobVerdict, judgeJob } from './job-verdict.js';
import { createPrng, drawFor, hashSeed } from './prng.js';
import { defaultDeadlineMs, type JobResult, runJob } from './run-job.js';
import type { Strategy } from './strategies/strategy.js';
import { createVirtualTime } from './virtual-time.js';

/** How long the `inventory` dependency is down (longer outages: `outageMs`; the amplification goal is per size, and a 50-job run has few operations to share one probe per interval). */
export const defaultOutageMs = 3_000;

export interface ChaosConfig {
  jobs: number;
  /** Probability that an operation (a job's step) meets a fault. */
  rate: number;
  seed: number;
  mix?: FaultMix | undefined;
  /** Mean virtual time between job arrivals. Default 200 ms. */
  arrivalGapMs?: number | undefined;
  /** The outage of the `inventory` dependency, starting at 40 % of the arrival span. Default 3 s. */
  outageMs?: number | undefined;
  /** Every strategy's per-job deadline, virtual ms from arrival. Default 120 s. */
  deadlineMs?: number | undefined;
}

export interface ChaosRun {
  metrics: StrategyMetrics;
  /** One per job, in job order: the measurement's view, for comparing strategies job by job. */
  verdicts: JobVerdict[];
}

/** Runs every job of `config` under one strategy, on virtual time, and measures it. */
export async function runChaos(
  config: ChaosConfig,
  strategy: Strategy,
  onProgress?: (done: number, total: number) => void,
): Promise<ChaosRun> {
  const gap = config.arrivalGapMs ?? 200;
  const time = createVirtualTime(createPrng(hashSeed(config.seed, 'math-random')));
  const outageStart = Math.round(config.jobs * gap * 0.4);
  const faults = { seed: config.seed, rate: config.rate, mix: config.mix };
  const downstream = new Downstream({
    clock: time,
    faults,
    outage: {
      dependency: 'inventory',
      startMs: outageStart,
      endMs: outageStart + (config.outageMs ?? defaultOutageMs),
    },
  });
  const realStart = performance.now();
  let callIds = 0;
  let finished = 0;
  const step = Math.max(1, Math.ceil(config.jobs / 10));
  const results = await time.run(async () => {
    const run = await strategy.start({
      time,
      downstream,
      seed: config.seed,
      deadlineMs: config.deadlineMs ?? defaultDeadlineMs,
    });
    try {
      const jobs: Promise<JobResult>[] = [];
      for (let i = 0; i < config.jobs; i++) {
        const jobId = `job-${i}`;
        const arrival = Math.round((i + drawFor(config.seed, 'arrival', i)) * gap);
        jobs.push(
          time.sleep(arrival).then(async () => {
            const result = await runJob({
              jobId,
              runner: run.createJob(jobId),
              downstream,
              clock: time,
              nextCallId: () => ++callIds,
              deadlineMs: config.deadlineMs,
            });
            finished++;
            if (finished % step === 0 || finished === config.jobs)
              onProgress?.(finished, config.jobs);
            return result;
          }),
        );
      }
      return await Promise.all(jobs);
    } finally {
      await run.close?.();
    }
  });
  const realMs = performance.now() - realStart;
  const verdicts = results.map((result) => judgeJob(result, downstream, faults));
  return { metrics: summarise(strategy, results, verdicts, downstream, realMs), verdicts };
}
