import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  callContext,
  createRecoveryRuntime,
  createRetryBudget,
  type Ledger,
  MemoryLedger,
  type RecoveryContract,
  type RetryBudgetOptions,
  type RetryOptions,
  type ToolPolicy,
} from '@recourse/core';
import { SqliteLedger } from '@recourse/core/sqlite';
import type { Downstream } from '../downstream.js';
import { jobSteps, type StepInput } from '../job-steps.js';
import { createPrng, hashSeed } from '../prng.js';
import type { NextMove, StepOutcome, Strategy } from './strategy.js';

/** Policies as a user would declare them for the nine tools. */
export function policiesFor(
  downstream: Downstream,
  { readsUndeclared = false } = {},
): Record<string, ToolPolicy<StepInput>> {
  const policies: Record<string, ToolPolicy<StepInput>> = {};
  for (const step of jobSteps) {
    // Reads declared as reads, writes as writes: a tool that declares nothing may write.
    const policy: ToolPolicy<StepInput> = { dependency: step.dependency };
    if (step.kind === 'write') policy.sideEffects = true;
    else if (!readsUndeclared) policy.sideEffects = false;
    if (step.guard === 'idempotent') policy.idempotent = true;
    if (step.guard === 'reconcile') {
      policy.reconcile = async (input, info) => ({
        happened: await downstream.lookup(step, input, info.idempotencyKey),
      });
    }
    policies[step.name] = policy;
  }
  return policies;
}

type LedgerKind = 'memory' | 'sqlite';

export interface RecourseStrategyOptions {
  ledger: LedgerKind;
  /** The shared per-dependency retry budget (default on); `false` turns it off. */
  retryBudget?: boolean | undefined;
  /** For the ablation: a name, retry and budget options over the defaults, reads left undeclared. */
  variant?:
    | {
        name: string;
        retry?: Omit<RetryOptions, 'budget'> | undefined;
        budget?: Omit<RetryBudgetOptions, 'clock'> | undefined;
        readsUndeclared?: boolean | undefined;
      }
    | undefined;
}

/**
 * recourse's runtime, one run per job (runId = job id), all jobs sharing one ledger and
 * one per-dependency retry budget, as one worker process would. The tool sends
 * `callContext().idempotencyKey` downstream: the same key on every attempt and replay.
 */
export function createRecourseStrategy(options: RecourseStrategyOptions): Strategy {
  const ledgerKind = options.ledger;
  const withBudget = options.retryBudget !== false;
  const variant = options.variant;
  return {
    name: variant?.name ?? `recourse (${ledgerKind}${withBudget ? '' : ', no retry budget'})`,
    kind: 'recourse',
    description: `recourse runtime, defaults with the job's deadline as deadlineMs (every wait and retry within the job's time), 200 ms × 4ⁿ equal jitter capped at 60 s${withBudget ? ', shared per-dependency retry budget with a half-open probe' : ', retry budget off'}), ${ledgerKind === 'memory' ? 'MemoryLedger' : 'SqliteLedger file'}`,
    start({ time, downstream, seed, deadlineMs }) {
      let directory: string | undefined;
      let ledger: Ledger;
      if (ledgerKind === 'sqlite') {
        directory = mkdtempSync(
          join(process.env.RECOURSE_BENCH_TMP ?? tmpdir(), 'recourse-bench-'),
        );
        ledger = new SqliteLedger({ path: join(directory, 'ledger.db'), clock: time });
      } else {
        ledger = new MemoryLedger({ clock: time });
      }
      const budget = withBudget ? createRetryBudget({ ...variant?.budget, clock: time }) : false;
      const random = createPrng(hashSeed(seed, 'recourse-jitter'));
      const policies = policiesFor(downstream, { readsUndeclared: variant?.readsUndeclared });
      return {
        createJob(jobId) {
          const runtime = createRecoveryRuntime({
            runId: jobId,
            // The job's time limit, which the agent knows: recovery spends the job's time.
            deadlineMs,
            ledger,
            policies,
            retry: { ...variant?.retry, budget },
            clock: time,
            random,
          });
          return {
            async call({ step, input, callId, send, signal }): Promise<StepOutcome> {
              const result = await runtime.execute({
                toolName: step.name,
                toolCallId: `call-${callId}`,
                input,
                signal,
                execute: () => send(callContext().idempotencyKey),
              });
              if (result.ok) return { ok: true };
              // What the run's outcome lists for an operator: the write may have landed.
              const inDoubt = (runtime.outcome().needs_reconciliation ?? []).some(
                (entry) => entry.tool === step.name,
              );
              return { ok: false, ...agentMove(result.contract), inDoubt };
            },
          };
        },
        async close() {
          await ledger.close?.();
          if (directory) rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  };
}

/**
 * The agent's reaction reads only the recovery contract the model receives: the same
 * call again when `retry_same_action` says so, repair on REPAIR when `invalid_field` names
 * what to fix (a REPAIR that names no field ends the job: the agent would have to guess),
 * re-read on REOBSERVE, stop as blocked on AUTHORIZATION; anything else (ABORT,
 * RECONCILE, REPLAN) ends the job.
 */
export function agentMove(contract: RecoveryContract): { next: NextMove; reason: string } {
  const reason = `${contract.recommended_recovery} ${contract.code}`;
  if (contract.retry_same_action) return { next: 'reissue', reason };
  if (contract.recommended_recovery === 'REPAIR') {
    return contract.invalid_field === undefined
      ? { next: 'abort', reason: `${reason} (no invalid_field)` }
      : { next: 'repair', reason };
  }
  if (contract.recommended_recovery === 'REOBSERVE') return { next: 'reobserve', reason };
  if (contract.failure_class === 'AUTHORIZATION') return { next: 'blocked', reason };
  return { next: 'abort', reason };
}
