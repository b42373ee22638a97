import type { Downstream } from './downstream.js';
import { jobSteps, operationOf, type StepInput } from './job-steps.js';
import type { JobRunner, StepOutcome } from './strategies/strategy.js';
import type { VirtualTime } from './virtual-time.js';

/**
 * What the job believes about a write it attempted. `abandoned`: the job's deadline cut
 * the call off, so the job has no belief (neither lost nor in doubt is claimed).
 */
export type Belief = 'done' | 'not-done' | 'in-doubt' | 'abandoned';

export type JobStatus = 'completed' | 'aborted' | 'blocked' | 'timed-out';

/** Where and why an unfinished job stopped. */
export interface JobStop {
  step: string;
  /** What the strategy last said (see `StepOutcome.reason`), or `DEADLINE`. */
  reason: string;
  /** The agent wanted another turn (repair, re-read, re-issue) but its turns were spent. */
  turnsSpent: boolean;
}

export interface JobResult {
  jobId: string;
  status: JobStatus;
  /** What the job believes about each write it attempted, by operation. */
  beliefs: Map<string, Belief>;
  startedAt: number;
  endedAt: number;
  stop?: JobStop | undefined;
}

export interface RunJobOptions {
  jobId: string;
  runner: JobRunner;
  downstream: Downstream;
  clock: Pick<VirtualTime, 'now' | 'sleep' | 'after'>;
  nextCallId: () => number;
  /** How many extra turns the agent spends on one step (repair, re-read, re-issue). Default 2. */
  agentTurns?: number | undefined;
  /** Virtual time from arrival after which the job is given up. Default 120 s. */
  deadlineMs?: number | undefined;
  /** What a model round trip costs before each extra turn. Default 1 s. */
  modelTurnMs?: number | undefined;
}

export const defaultAgentTurns = 2;
export const defaultDeadlineMs = 120_000;
export const defaultModelTurnMs = 1_000;

/** The reason a deadline abort carries, so the job can tell it from a failure. */
class DeadlineReached extends Error {
  override readonly name = 'DeadlineReached';
}

/**
 * One job: nine steps in order, as a simulated agent runs them. The agent is the same for
 * every strategy: it follows what it is shown (repair the arguments, re-read and try
 * again, call again, or stop), at most `agentTurns` extra turns per step, each after a
 * model round trip; differences between strategies come from the retry layer and from
 * what it tells the model. A job not finished `deadlineMs` after arrival is timed out:
 * waiting longer is not counted as success.
 */
export async function runJob(options: RunJobOptions): Promise<JobResult> {
  const { jobId, runner, downstream, clock } = options;
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs;
  const modelTurnMs = options.modelTurnMs ?? defaultModelTurnMs;
  const turns = options.agentTurns ?? defaultAgentTurns;
  const beliefs = new Map<string, Belief>();
  const startedAt = clock.now();
  const deadline = new AbortController();
  const cancelDeadline = clock.after(deadlineMs, () => deadline.abort(new DeadlineReached()));
  const end = (status: JobStatus, stop?: JobStop): JobResult => {
    cancelDeadline();
    return { jobId, status, beliefs, startedAt, endedAt: clock.now(), stop };
  };
  for (const [index, step] of jobSteps.entries()) {
    let input: StepInput = {
      job: jobId,
      step: step.name,
      amount: 10 + index,
      fixed: false,
      version: 1,
    };
    const operation = operationOf(input);
    const timedOut = () => {
      if (step.kind === 'write' && !beliefs.has(operation)) beliefs.set(operation, 'abandoned');
      return end('timed-out', { step: step.name, reason: 'DEADLINE', turnsSpent: false });
    };
    for (let turn = 0; ; turn++) {
      if (deadline.signal.aborted) return timedOut();
      const callInput = input;
      const callId = options.nextCallId();
      let outcome: StepOutcome;
      try {
        outcome = await runner.call({
          step,
          input: callInput,
          callId,
          signal: deadline.signal,
          send: (idempotencyKey) => downstream.request({ step, input: callInput, idempotencyKey }),
        });
      } catch (error) {
        if (deadline.signal.aborted) return timedOut();
        throw error;
      }
      if (outcome.ok) {
        if (step.kind === 'write') beliefs.set(operation, 'done');
        break;
      }
      if (deadline.signal.aborted) return timedOut();
      const wantsTurn =
        outcome.next === 'repair' || outcome.next === 'reobserve' || outcome.next === 'reissue';
      if (wantsTurn && turn < turns) {
        try {
          await clock.sleep(modelTurnMs, deadline.signal);
          if (outcome.next === 'repair') input = { ...input, fixed: true };
          if (outcome.next === 'reobserve') {
            const observed = await downstream.observe();
            input = { ...input, version: observed.version };
          }
        } catch (error) {
          if (deadline.signal.aborted) return timedOut();
          throw error;
        }
        continue;
      }
      if (step.kind === 'write') beliefs.set(operation, outcome.inDoubt ? 'in-doubt' : 'not-done');
      return end(outcome.next === 'blocked' ? 'blocked' : 'aborted', {
        step: step.name,
        reason: outcome.reason,
        turnsSpent: wantsTurn,
      });
    }
  }
  if (clock.now() - startedAt > deadlineMs) {
    return end('timed-out', { step: jobSteps.at(-1)!.name, reason: 'DEADLINE', turnsSpent: false });
  }
  return end('completed');
}
