import {
  type AiSdkRecovery,
  type AiSdkRecoveryOptions,
  createRecovery as createAiSdkRecovery,
  InvalidOptionsError,
  type Ledger,
  type ToolPolicies,
} from '@recourse/ai-sdk';
import { SqliteLedger } from '@recourse/core/sqlite';
import type { Context } from '@restatedev/restate-sdk';
import { bindToAttempt } from './attempt-signal.js';
import { runIdOf } from './run-id.js';

/** The default ledger's file, in the working directory. */
export const defaultLedgerPath = 'recourse-restate.sqlite';
let fileLedger: SqliteLedger | undefined;
const defaultLedger = (): SqliteLedger => {
  fileLedger ??= new SqliteLedger({ path: defaultLedgerPath });
  return fileLedger;
};

export interface RestateRecoveryOptions
  extends Omit<AiSdkRecoveryOptions, 'runId' | 'ledger' | 'engine'> {
  /**
   * The run the keys belong to. Default: `<workflow>/<key>` in a workflow's handlers, the
   * invocation id elsewhere (both stable across Restate's retries of the invocation).
   */
  runId?: string | undefined;
  /**
   * Where the run's claims and facts live. Default: a SQLite file, `recourse-restate.sqlite`
   * in the working directory, which survives the process on this machine. Several machines
   * serving the handler need a ledger they share (`PostgresLedger`, `RedisLedger`).
   */
  ledger?: Ledger | undefined;
}

/** What `createRecovery` returns: the same pieces as `@recourse/ai-sdk`'s. */
export type RestateRecovery = AiSdkRecovery;

/**
 * recourse for an AI SDK agent inside a Restate handler: call it in the handler with its
 * context. Restate runs the invocation again after a crash and returns the model calls it
 * journaled (`durableCalls` of `@restatedev/vercel-ai-middleware`), so the same tool calls
 * come back with the same keys; the ledger answers every completed write, takes over the
 * claim a dead process left (reconcile, replay behind the key, or a person), and waits of
 * keeps a write's wait in its claim, so a retried invocation waits out the rest.
 */
export function createRecovery(
  ctx: Context,
  options: RestateRecoveryOptions = {},
): RestateRecovery {
  if (typeof ctx?.request !== 'function' || typeof ctx.sleep !== 'function') {
    throw new InvalidOptionsError('ctx', "must be the Restate handler's context");
  }
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options', 'expected an object');
  }
  if ('engine' in options) {
    throw new InvalidOptionsError('engine', 'is set by @recourse/restate itself');
  }
  const { runId, ledger, ...rest } = options;
  const recovery = createAiSdkRecovery({
    ...rest,
    ledger: ledger ?? defaultLedger(),
    runId: runId ?? runIdOf(ctx),
    // Waits are not ctx.sleep: Restate's journal is positional, and a resumed call the
    // ledger answers at once would skip a sleep the first execution journaled (a journal
    // mismatch, RT0016). A write's wait lives in its claim, which outlives the process.
    engine: {},
  });
  // Once this attempt is over, Restate may run a new one beside it: calls here stop sending.
  const attemptEnded = ctx.request().attemptCompletedSignal as AbortSignal | undefined;
  if (!attemptEnded) return recovery;
  const { tools } = recovery;
  return {
    ...recovery,
    tools: <T extends Record<string, unknown>>(toolset: T, policies?: ToolPolicies<T>) =>
      bindToAttempt(tools(toolset, policies), attemptEnded),
  };
}
