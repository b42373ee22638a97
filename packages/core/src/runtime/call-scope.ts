import type { Clock, RandomSource } from '../clock.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ResolvedBackoff } from '../policy/backoff.js';
import type { RetryBudget } from '../policy/retry-budget.js';
import type { Classification, JsonValue } from '../types.js';
import type { RecoveryEvent } from './events.js';
import { type LeaseHeartbeat, startLeaseHeartbeat } from './lease-heartbeat.js';
import type { ToolPolicy } from './options.js';
import type { RunState } from './run-state.js';
import type { ToolCallRequest } from './tool-call.js';

/** Everything one call needs from its run. */
export interface CallEnvironment {
  runId: string;
  request: ToolCallRequest;
  policy: ToolPolicy;
  key: string;
  payloadHash: string;
  ledger: Ledger;
  clock: Clock;
  random: RandomSource;
  emit: (event: RecoveryEvent) => void;
  classify: (error: unknown, hints?: { sideEffects?: boolean | undefined }) => Classification;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  state: RunState;
  maxAttempts: number;
  repairBudget: number;
  inFlightWaitMs: number;
  fingerprint: (classification: Classification) => string;
}

export interface CallEventBase {
  runId: string;
  tool: string;
  toolCallId: string;
  idempotencyKey: string;
  at: number;
}

export type SettleHow = 'complete' | 'release' | 'uncertain';

/** One call in progress: its event identity and, for a write, the claim it holds. */
export interface CallScope {
  readonly env: CallEnvironment;
  base(): CallEventBase;
  /**
   * Ends the claim once: `complete` stores the value, `release` frees the key (the
   * attempt provably changed nothing), `uncertain` keeps it in doubt. A read has no claim.
   */
  settle(how: SettleHow, value?: () => JsonValue): Promise<void>;
  /** A lease renewal was refused: another worker owns the key, so nothing may be re-sent. */
  leaseLost(): boolean;
  /** The write may have landed; whoever leaves the call must keep the key in doubt. */
  inDoubt: boolean;
}

export function createCallScope(
  env: CallEnvironment,
  token?: string | undefined,
  inDoubt = false,
): CallScope {
  const { ledger, key, clock, request } = env;
  let held = token;
  // Renew the lease for as long as the claim is held (executes, backoffs, reconcile
  // reads): a write slower than one lease must not be taken over while it still runs.
  const heartbeat: LeaseHeartbeat | undefined =
    token === undefined ? undefined : startLeaseHeartbeat({ ledger, key, token, clock });
  return {
    env,
    inDoubt,
    base: () => ({
      runId: env.runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: key,
      at: clock.now(),
    }),
    leaseLost: () => heartbeat?.lost === true,
    async settle(how, value) {
      if (held === undefined) return;
      const claimToken = held;
      held = undefined;
      heartbeat?.stop();
      try {
        if (how === 'complete') await ledger.complete(key, claimToken, value ? value() : null);
        else if (how === 'release') await ledger.release(key, claimToken);
        else await ledger.markUncertain(key, claimToken, `${request.toolName}: outcome unknown`);
      } catch {
        // Lease lost (another worker owns the key) or store down: the record stays in
        // flight, expires, and the next claimer sees `previous: 'expired'` and
        // reconciles. Never a silent re-send.
      }
    },
  };
}

export function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return null;
  }
}
