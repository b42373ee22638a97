import type { Classification, Decision } from '../types.js';
import type { CallEnvironment } from './call-scope.js';
import { buildContract } from './recovery-contract.js';
import type { ToolCallResult } from './tool-call.js';

export interface HeldClaim {
  token: string;
}

export type ClaimOutcome =
  | { kind: 'done'; result: ToolCallResult }
  | { kind: 'held'; claim: HeldClaim; inDoubt: boolean };

const pollMs = 100;

/**
 * Claims the write's key before anything is sent. A completed key returns the stored
 * result; an in-flight key is waited on (bounded); an unreachable store is retried as a
 * transient fault and, if it stays down, the write is not executed (fail closed).
 */
export async function acquireClaim(env: CallEnvironment): Promise<ClaimOutcome> {
  const { ledger, clock, key, request } = env;
  const tool = request.toolName;
  const base = { runId: env.runId, tool, toolCallId: request.toolCallId, idempotencyKey: key };
  const waitUntil = clock.now() + env.inFlightWaitMs;
  for (let attempt = 1; ; ) {
    let claimed: Awaited<ReturnType<typeof ledger.claim>>;
    try {
      claimed = await ledger.claim({ key, payloadHash: env.payloadHash });
    } catch (error) {
      const classification = env.classify(error);
      if (attempt < env.maxAttempts) {
        attempt++;
        await clock.sleep(
          env.backoff.baseDelayMs * env.backoff.factor ** (attempt - 2),
          request.signal,
        );
        continue;
      }
      return done(
        env,
        classification,
        abort(
          'LEDGER_UNAVAILABLE',
          `the ${ledger.name} ledger could not be reached; the write was not sent`,
        ),
        error,
      );
    }
    switch (claimed.status) {
      case 'acquired':
        return {
          kind: 'held',
          claim: { token: claimed.token },
          inDoubt: claimed.previous !== undefined,
        };
      case 'completed':
        env.state.recordSuccess(tool);
        env.emit({ ...base, type: 'call.deduplicated', source: 'ledger', at: clock.now() });
        return {
          kind: 'done',
          result: { ok: true, value: claimed.result, deduplicated: true, degraded: false },
        };
      case 'conflict': {
        const classification: Classification = {
          failureClass: 'PERMANENT',
          code: 'IDEMPOTENCY_CONFLICT',
          message: `key ${key} was used with a different payload`,
        };
        return done(env, classification, {
          action: 'REPLAN',
          code: 'IDEMPOTENCY_CONFLICT',
          reason: 'the idempotency key belongs to a different operation',
          terminal: false,
        });
      }
      case 'in_flight': {
        const remaining = waitUntil - clock.now();
        if (remaining > 0) {
          await clock.sleep(Math.min(pollMs, remaining), request.signal);
          continue;
        }
        env.emit({ ...base, type: 'call.in-flight', at: clock.now() });
        const classification: Classification = {
          failureClass: 'UNKNOWN_OUTCOME',
          code: 'IN_FLIGHT',
          message: `the same ${tool} operation is in flight elsewhere`,
        };
        const decision: Decision = {
          action: 'REOBSERVE',
          code: 'IN_FLIGHT',
          reason: 'another worker holds this write; wait for its result',
          terminal: false,
        };
        const contract = buildContract({
          tool,
          decision,
          classification,
          idempotencyKey: key,
          status: 'IN_FLIGHT',
        });
        env.state.recordFailure(tool, classification, decision, contract.guidance);
        return { kind: 'done', result: { ok: false, contract, decision, classification } };
      }
    }
  }
}

function done(
  env: CallEnvironment,
  classification: Classification,
  decision: Decision,
  error?: unknown,
): ClaimOutcome {
  const contract = buildContract({
    tool: env.request.toolName,
    decision,
    classification,
    idempotencyKey: env.key,
  });
  env.state.recordFailure(env.request.toolName, classification, decision, contract.guidance);
  return {
    kind: 'done',
    result: {
      ok: false,
      contract,
      decision,
      classification,
      ...(error === undefined ? {} : { error }),
    },
  };
}

function abort(code: string, reason: string): Decision {
  return { action: 'ABORT', code, reason, terminal: true };
}
