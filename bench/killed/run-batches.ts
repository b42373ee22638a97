import type { Downstream, WriteCounts } from './downstream-server.js';
import type { Engine, JobEnd } from './engine.js';
import type { KillPlan } from './kill-plan.js';
import type { JobSpec, Strategy, WriteTool } from './protocol.js';

/** Everything the tally needs of one job. */
export interface JobRecord {
  strategy: Strategy;
  plan: KillPlan;
  /** False when the job never stood at its kill point before the kill (not expected). */
  reachedPoint: boolean;
  end: JobEnd;
  counts: Record<WriteTool, WriteCounts>;
}

export interface BatchOptions {
  engine: Engine;
  downstream: Downstream;
  plans: KillPlan[];
  /** Jobs per worker life, both strategies together. */
  batchSize: number;
  /** How long the first life may take to bring every job to its point. */
  blockTimeoutMs: number;
  log: (line: string) => void;
}

/**
 * Runs every plan twice (recourse + engine, engine alone), a batch at a time: the worker's
 * first life starts the batch and is SIGKILLed once every job stands at its point, the
 * requests the downstream held are applied, and a restarted worker resumes the jobs.
 */
export async function runBatches(options: BatchOptions): Promise<JobRecord[]> {
  const { engine, downstream, plans, log } = options;
  const jobs = plans.flatMap((plan) =>
    (['recourse', 'alone'] as const).map((strategy) => ({ plan, strategy })),
  );
  const records: JobRecord[] = [];
  const run = Date.now().toString(36);
  for (let from = 0; from < jobs.length; from += options.batchSize) {
    const batch = jobs.slice(from, from + options.batchSize).map(({ plan, strategy }) => {
      const jobId = `kb-${run}-${strategy}-${plan.index}`;
      downstream.plan(jobId, plan.write, plan.point);
      const spec: JobSpec = {
        jobId,
        recourse: strategy === 'recourse',
        ...(plan.point === 'before-send' ? { stopBeforeSending: plan.write } : {}),
      };
      return { plan, strategy, spec };
    });
    const specs = batch.map((job) => job.spec);
    const atPoint = new Set<string>();
    let allAtPoint = () => {};
    const reached = new Promise<void>((resolve) => {
      allAtPoint = resolve;
    });
    const mark = (jobId: string) => {
      atPoint.add(jobId);
      if (atPoint.size === specs.length) allAtPoint();
    };
    downstream.onHeld = mark;
    const worker = await engine.startJobs(specs, downstream.url);
    worker.process.on('message', (m: { type: string; jobId?: string }) => {
      if (m.type === 'blocking' && m.jobId) mark(m.jobId);
    });
    for (const m of worker.messages) if (m.type === 'blocking') mark(m.jobId);
    let timer: NodeJS.Timeout | undefined;
    let killed = false;
    const died = worker.exited.then(() => {
      if (!killed)
        throw new Error(`${engine.name} worker died before the kill: ${worker.stderr()}`);
      return false;
    });
    died.catch(() => {});
    const timedOut = await Promise.race([
      reached.then(() => false),
      died,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(resolve, options.blockTimeoutMs, true);
      }),
    ]).finally(() => clearTimeout(timer));
    killed = true;
    if (timedOut)
      log(`${engine.name}: ${specs.length - atPoint.size} jobs never reached their point`);
    await worker.kill();
    downstream.release();
    const ends = await engine.resume(specs, downstream.url);
    for (const { plan, strategy, spec } of batch) {
      records.push({
        strategy,
        plan,
        reachedPoint: atPoint.has(spec.jobId),
        end: ends.get(spec.jobId) ?? { kind: 'unfinished' },
        counts: downstream.counts(spec.jobId),
      });
    }
    log(`${engine.name}: ${records.length}/${jobs.length} jobs killed and resumed`);
  }
  return records;
}
