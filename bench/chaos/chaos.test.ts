import { createRecoveryRuntime, type RecoveryContract } from '@recourse/core';
import { describe, expect, it } from 'vitest';
import { Downstream } from './downstream.js';
import { httpError, timeoutError } from './downstream-errors.js';
import { type FaultKind, type FaultMix, faultKinds, planFault } from './fault-schedule.js';
import { jobSteps, type StepInput, type StepSpec } from './job-steps.js';
import { isProtectedJob, judgeJob } from './job-verdict.js';
import { type ChaosRun, runChaos } from './run-chaos.js';
import type { JobResult } from './run-job.js';
import { agentsSdkDefaultStrategy } from './strategies/agents-sdk-default.js';
import { aiSdkAloneStrategy } from './strategies/ai-sdk-alone.js';
import { outcomeFromError } from './strategies/baseline-outcome.js';
import { langchainToolRetryStrategy } from './strategies/langchain-tool-retry.js';
import { naiveStrategy } from './strategies/naive.js';
import { pRetryStrategy } from './strategies/p-retry.js';
import { agentMove, createRecourseStrategy } from './strategies/recourse.js';
import { createVirtualTime } from './virtual-time.js';

const step = (name: string): StepSpec => jobSteps.find((s) => s.name === name)!;
const input = (name: string): StepInput => ({
  job: 'job-1',
  step: name,
  amount: 10,
  fixed: false,
  version: 1,
});

describe('Downstream', () => {
  const create = () => {
    const time = createVirtualTime(() => 0.5);
    const downstream = new Downstream({
      clock: time,
      faults: { seed: 1, rate: 0 },
      outage: { dependency: 'inventory', startMs: 1e9, endMs: 1e9 },
    });
    return { time, downstream };
  };

  it('counts a write sent under two keys twice, and dedupes a repeat of one key', async () => {
    const { time, downstream } = create();
    const order = step('create_order');
    await time.run(async () => {
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'a',
      });
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'a',
      });
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'b',
      });
    });
    expect(downstream.record(order, input(order.name)).applied).toBe(2);
    expect(downstream.counters.requests).toBe(3);
  });

  it('applies every request of an unguarded write and finds a landed key by lookup', async () => {
    const { time, downstream } = create();
    const crm = step('update_crm');
    const found = await time.run(async () => {
      await downstream.request({
        step: crm,
        input: input(crm.name),
        idempotencyKey: 'k',
      });
      await downstream.request({
        step: crm,
        input: input(crm.name),
        idempotencyKey: 'k',
      });
      return [
        await downstream.lookup(crm, input(crm.name), 'k'),
        await downstream.lookup(crm, input(crm.name), 'other'),
      ];
    });
    expect(downstream.record(crm, input(crm.name)).applied).toBe(2);
    expect(found).toEqual([true, false]);
  });
});

describe('fault schedule', () => {
  const operations = Array.from({ length: 400 }, (_, i) => `job-${i}/create_order`);
  const plans = (seed: number, rate: number) =>
    operations.map((op) => planFault({ seed, rate }, op, step('create_order')));

  it('is the same for the same seed and differs for another seed', () => {
    expect(plans(7, 0.2)).toEqual(plans(7, 0.2));
    expect(plans(8, 0.2)).not.toEqual(plans(7, 0.2));
  });

  it('faults about `rate` of the operations, and none at rate 0', () => {
    const faulted = plans(7, 0.2).filter((plan) => plan.kind !== 'none').length;
    expect(faulted).toBeGreaterThan(40);
    expect(faulted).toBeLessThan(120);
    expect(plans(7, 0).every((plan) => plan.kind === 'none')).toBe(true);
  });

  it('never gives a read a write-only fault', () => {
    const reads = operations.map((op) => planFault({ seed: 3, rate: 1 }, op, step('get_customer')));
    expect(reads.some((plan) => plan.kind === 'timeout-after-write')).toBe(false);
    expect(reads.some((plan) => plan.kind === 'stale-state')).toBe(false);
  });
});

describe('runChaos', () => {
  const config = { jobs: 40, rate: 0.3, seed: 11 };
  const withoutRealTime = ({ metrics: { realMs: _, ...rest }, verdicts }: ChaosRun) => ({
    rest,
    verdicts,
  });

  it('is reproducible: the same seed gives the same figures and verdicts', async () => {
    for (const strategy of [naiveStrategy, langchainToolRetryStrategy]) {
      const first = await runChaos(config, strategy);
      const second = await runChaos(config, strategy);
      expect(withoutRealTime(second)).toEqual(withoutRealTime(first));
    }
  });

  it('counts the naive baseline duplicates; recourse lands every write at most once', async () => {
    const naive = (await runChaos(config, naiveStrategy)).metrics;
    const recourse = (await runChaos(config, createRecourseStrategy({ ledger: 'memory' }))).metrics;
    expect(naive.duplicateWrites).toBeGreaterThan(0);
    expect(recourse.duplicateWrites).toBe(0);
    expect(recourse.lostWrites).toBe(0);
    expect(recourse.wastedAttempts).toBe(0);
  });

  it('does not count a completed job with a duplicated write as a correct completion', async () => {
    // Only lost responses: the naive loop re-sends each write until one answers, so its
    // jobs complete (no outage here), some with a write landed more than once.
    const lostResponses = { ...config, mix: only('timeout-after-write'), outageMs: 0 };
    const { metrics, verdicts } = await runChaos(lostResponses, naiveStrategy);
    const completedWithDuplicate = verdicts.filter((v) => v.status === 'completed' && !v.correct);
    expect(completedWithDuplicate.length).toBeGreaterThan(0);
    expect(metrics.correctCompletions).toBe(metrics.jobs.completed - completedWithDuplicate.length);
    const tallied = metrics.unfinished.reduce((sum, cause) => sum + cause.jobs, 0);
    expect(tallied).toBe(metrics.jobs.total - metrics.correctCompletions);
  });

  it('times a job out at the deadline instead of counting a long wait as success', async () => {
    // Every operation answers 403: p-retry's 10 retries over 17 minutes of backoff run
    // into the deadline, the naive loop gives up at once and the job is blocked.
    const forbidden = { jobs: 3, rate: 1, seed: 5, mix: only('forbidden') };
    const slow = (await runChaos(forbidden, pRetryStrategy)).metrics;
    const fast = (await runChaos(forbidden, naiveStrategy)).metrics;
    expect(slow.jobs.timedOut).toBe(3);
    expect(slow.correctCompletions).toBe(0);
    expect(fast.jobs.blocked).toBe(3);
  });

  it('lets the agent re-issue what the text does not explain, and stop on a status it can read', async () => {
    // One job, every operation 403. LangChain's failure text names only the error class,
    // so the agent calls twice more (3 × 3 requests); the AI SDK shows "(403)": it stops.
    const forbidden = { jobs: 1, rate: 1, seed: 5, mix: only('forbidden') };
    const langchain = (await runChaos(forbidden, langchainToolRetryStrategy)).metrics;
    const aiSdk = (await runChaos(forbidden, aiSdkAloneStrategy)).metrics;
    expect(langchain.downstreamRequests).toBe(9);
    expect(langchain.jobs.aborted).toBe(1);
    expect(aiSdk.downstreamRequests).toBe(1);
    expect(aiSdk.jobs.blocked).toBe(1);
  });

  it("the Agents SDK's fixed sentence names no status: the agent calls a 403 again", async () => {
    const forbidden = { jobs: 1, rate: 1, seed: 5, mix: only('forbidden') };
    const agents = (await runChaos(forbidden, agentsSdkDefaultStrategy)).metrics;
    expect(agents.downstreamRequests).toBeGreaterThan(1);
    expect(agents.jobs.blocked).toBe(0);
  });

  it('counts the Agents SDK default duplicates a lost response makes', async () => {
    const agents = (await runChaos(config, agentsSdkDefaultStrategy)).metrics;
    expect(agents.duplicateWrites).toBeGreaterThan(0);
  });
});

describe('job verdicts', () => {
  it('calls a job protected unless its unguarded write meets a timeout', () => {
    const faults = { seed: 9, rate: 1 };
    const confirmation = step('send_confirmation');
    const planOf = (job: string) => planFault(faults, `${job}/${confirmation.name}`, confirmation);
    const jobs = Array.from({ length: 200 }, (_, i) => `job-${i}`);
    const timedOut = jobs.find((job) => planOf(job).kind.startsWith('timeout'))!;
    const other = jobs.find((job) => !planOf(job).kind.startsWith('timeout'))!;
    expect(isProtectedJob(timedOut, faults)).toBe(false);
    expect(isProtectedJob(other, faults)).toBe(true);
    expect(isProtectedJob('job-1', { seed: 9, rate: 0 })).toBe(true);
  });

  it('judges a completed job correct only when every write landed exactly once', async () => {
    const time = createVirtualTime(() => 0.5);
    const faults = { seed: 1, rate: 0 };
    const downstream = new Downstream({
      clock: time,
      faults,
      outage: { dependency: 'inventory', startMs: 1e9, endMs: 1e9 },
    });
    const writes = jobSteps.filter((s) => s.kind === 'write');
    await time.run(async () => {
      for (const write of writes) {
        await downstream.request({ step: write, input: input(write.name), idempotencyKey: 'k' });
      }
    });
    const result: JobResult = {
      jobId: 'job-1',
      status: 'completed',
      beliefs: new Map(),
      startedAt: 0,
      endedAt: 0,
    };
    expect(judgeJob(result, downstream, faults).correct).toBe(true);
    const crm = step('update_crm');
    await time.run(() =>
      downstream.request({ step: crm, input: input(crm.name), idempotencyKey: 'again' }),
    );
    expect(judgeJob(result, downstream, faults).correct).toBe(false);
  });
});

describe('what the agent reads', () => {
  it('reacts to recourse from the recovery contract alone', () => {
    const contract = (fields: Partial<RecoveryContract>): RecoveryContract => ({
      status: 'FAILED',
      failure_class: 'TRANSIENT',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'ATTEMPTS_EXHAUSTED',
      tool: 'get_customer',
      reason: 'r',
      guidance: 'g',
      ...fields,
    });
    expect(
      agentMove(contract({ retry_same_action: true, recommended_recovery: 'RETRY' })).next,
    ).toBe('reissue');
    expect(
      agentMove(
        contract({
          recommended_recovery: 'REPAIR',
          failure_class: 'VALIDATION',
          invalid_field: 'amount',
        }),
      ).next,
    ).toBe('repair');
    // A repair that names no field would be a guess: the agent does not make it.
    expect(
      agentMove(contract({ recommended_recovery: 'REPAIR', failure_class: 'VALIDATION' })).next,
    ).toBe('abort');
    expect(agentMove(contract({ recommended_recovery: 'REOBSERVE' })).next).toBe('reobserve');
    expect(agentMove(contract({ failure_class: 'AUTHORIZATION' })).next).toBe('blocked');
    expect(agentMove(contract({})).next).toBe('abort');
    expect(agentMove(contract({})).reason).toBe('ABORT ATTEMPTS_EXHAUSTED');
  });

  it("the downstream's 422 reaches the recourse agent with the field to fix", async () => {
    const runtime = createRecoveryRuntime({
      runId: 'job-1',
      policies: { create_order: { sideEffects: true } },
    });
    const result = await runtime.execute({
      toolName: 'create_order',
      toolCallId: 'call-1',
      input: { amount: -1 },
      execute: () => {
        throw httpError('job-1/create_order', 422);
      },
    });
    if (result.ok) throw new Error('expected the 422 to fail the call');
    expect(result.contract).toMatchObject({
      recommended_recovery: 'REPAIR',
      invalid_field: 'amount',
    });
    expect(agentMove(result.contract).next).toBe('repair');
  });

  it('reads a baseline from the error text the AI SDK hands the model', () => {
    expect(outcomeFromError(httpError('job-1/create_order', 422))).toMatchObject({
      next: 'repair',
    });
    expect(outcomeFromError(httpError('job-1/create_order', 412))).toMatchObject({
      next: 'reobserve',
    });
    expect(outcomeFromError(httpError('job-1/create_order', 403))).toMatchObject({
      next: 'blocked',
    });
    expect(outcomeFromError(httpError('job-1/create_order', 503))).toMatchObject({
      next: 'reissue',
      reason: 'HTTP 503',
    });
    expect(outcomeFromError(timeoutError())).toMatchObject({ reason: 'TimeoutError' });
  });
});

function only(kind: FaultKind): FaultMix {
  return Object.fromEntries(faultKinds.map((k) => [k, k === kind ? 1 : 0])) as FaultMix;
}
