import type { Clock } from '@recourse/core';
import type { Downstream } from './downstream.js';
import { jobSteps, operationOf, type StepInput } from './job-steps.js';
import type { JobRunner } from './strategies/strategy.js';

export type Belief = 'done' | 'not-done' | 'in-doubt';

export interface JobResult {
  jobId: string;
  status: 'completed' | 'aborted' | 'blocked';
  /** What the job believes about each write it attempted, by operation. */
  beliefs: Map<string, Belief>;
  startedAt: number;
  endedAt: number;
}

export interface RunJobOptions {
  jobId: string;
  runner: JobRunner;
  downstream: Downstream;
  clock: Clock;
  nextCallId: () => number;
  /** How many times the agent re-issues a step after a repair or re-observe. Default 2. */
  agentTurns?: number | undefined;
}

/**
 * One job: nine steps in order, as a simulated agent runs them. The agent is the same for
 * every strategy: it follows the failure it is shown (repair the arguments, re-read and
 * try again, or stop), so differences between strategies come from the retry layer.
 */
export async function runJob(options: RunJobOptions): Promise<JobResult> {
  const { jobId, runner, downstream, clock } = options;
  const beliefs = new Map<string, Belief>();
  const startedAt = clock.now();
  const end = (status: JobResult['status']): JobResult => ({
    jobId,
    status,
    beliefs,
    startedAt,
    endedAt: clock.now(),
  });
  for (const [index, step] of jobSteps.entries()) {
    let input: StepInput = {
      job: jobId,
      step: step.name,
      amount: 10 + index,
      fixed: false,
      version: 1,
    };
    for (let turn = 0; ; turn++) {
      const callInput = input;
      const callId = options.nextCallId();
      const outcome = await runner.call({
        step,
        input: callInput,
        callId,
        send: (idempotencyKey) =>
          downstream.request({ step, input: callInput, idempotencyKey, callId }),
      });
      if (outcome.ok) {
        if (step.kind === 'write') beliefs.set(operationOf(input), 'done');
        break;
      }
      const canTurn = turn < (options.agentTurns ?? 2);
      if (outcome.next === 'repair' && canTurn) {
        input = { ...input, fixed: true };
        continue;
      }
      if (outcome.next === 'reobserve' && canTurn) {
        const observed = await downstream.observe();
        input = { ...input, version: observed.version };
        continue;
      }
      if (step.kind === 'write')
        beliefs.set(operationOf(input), outcome.inDoubt ? 'in-doubt' : 'not-done');
      return end(outcome.next === 'blocked' ? 'blocked' : 'aborted');
    }
  }
  return end('completed');
}
