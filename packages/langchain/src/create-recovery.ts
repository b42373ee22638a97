import type { CompensationReport, Outcome } from '@recourse/core';
import {
  optionChecks,
  RecourseError,
  type RecoveryOptions,
  type RecoveryRuntime,
  validateRecoveryOptions,
} from '@recourse/core/adapter';
import type { AgentMiddleware } from 'langchain';
import { createRecoveryMiddleware } from './recovery-middleware.js';
import { createRunBinding } from './run-binding.js';

export interface LangChainRecoveryOptions extends Omit<RecoveryOptions, 'runId'> {
  /**
   * The run, which the idempotency keys are derived from. Default: the LangGraph thread
   * the agent is first invoked on (`configurable.thread_id`), so that a thread resumed from
   * its checkpointer (after an interrupt or a crash, by a recovery made anew over the same
   * ledger) is the same run and reaches the same keys. Without either, the first
   * invocation fails with `InvalidOptionsError`.
   */
  runId?: string | undefined;
  /**
   * A one-line console warning when a policy names no tool of the agent (a typo there would
   * silently turn a write into a tool without its policy), checked at the first model call.
   * Default true; the `policy.unused` event is emitted either way.
   */
  warn?: boolean | undefined;
}

/** What `createRecovery` returns: pass `middleware` to `createAgent`. */
export interface LangChainRecovery {
  /** The run: `options.runId`, or the thread's id once the agent ran (undefined before). */
  readonly runId: string | undefined;
  /** `createAgent({ model, tools, middleware: [recovery.middleware] })`. */
  readonly middleware: AgentMiddleware;
  /** True once the run reached a terminal state: the middleware ends the agent's loop. */
  isStopped(): boolean;
  outcome(): Outcome;
  /** Undoes the run's completed writes that have a `compensate`, newest first, each at most once. */
  compensate(): Promise<CompensationReport>;
  /**
   * The agent threw (the model is down once its own retries were spent): pass the error
   * here and the run ends FAILED with it classified, and the outcome comes back.
   */
  modelFailed(error: unknown): Promise<Outcome>;
  /**
   * The run is over: stops watching the ledger for its facts (see `RecoveryRuntime.close`).
   * Optional (nothing to do before the run started): a dropped recovery lets go when collected.
   */
  close(): void;
  /** The framework-independent engine, for events, the ledger and lower-level use (once the run exists). */
  readonly runtime: RecoveryRuntime | undefined;
}

/**
 * The recovery layer for a LangChain v1 agent (`createAgent`). Options are checked here: a
 * bad field throws `InvalidOptionsError` naming it (and the key that was meant).
 */
export function createRecovery(options: LangChainRecoveryOptions): LangChainRecovery {
  // The thread stands in for a missing runId, so the check sees a placeholder there.
  validateRecoveryOptions(
    { ...options, runId: options?.runId ?? 'thread' },
    { warn: optionChecks.bool },
  );
  const { warn = true, ...core } = options;
  const binding = createRunBinding(core);
  const started = (): RecoveryRuntime => {
    const runtime = binding.current;
    if (runtime) return runtime;
    throw new RecourseError(
      'OUTSIDE_CALL',
      'the run has not started: without a runId, the run is the thread of the first invocation',
    );
  };
  return {
    get runId() {
      return binding.current?.runId;
    },
    middleware: createRecoveryMiddleware(binding, { warn }) as AgentMiddleware,
    isStopped: () => binding.current?.isStopped() ?? false,
    outcome: () => started().outcome(),
    compensate: () => started().compensate(),
    modelFailed: (error) => started().modelFailed(error),
    close: () => binding.current?.close(),
    get runtime() {
      return binding.current;
    },
  };
}
