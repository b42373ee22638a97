import type { Classification, Decision } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { failure } from './fail-call.js';

/**
 * The declared fallback, used explicitly: the result is marked degraded, never passed off
 * as the primary's. The primary changed nothing (a fallback is never decided for a write
 * in doubt), so its claim is released. A fallback that throws ends the call.
 */
export async function useFallback(
  call: Call,
  classification: Classification,
  decision: Decision,
): Promise<CallEnding> {
  const { run, tool, request } = call;
  await call.settle('release');
  let value: unknown;
  try {
    value = await tool.policy.fallback!(request.input, {
      runId: run.runId,
      toolName: tool.name,
      idempotencyKey: call.key,
      classification,
    });
  } catch (error) {
    const failed: Decision = {
      action: 'ABORT',
      code: 'FALLBACK_FAILED',
      reason: `the declared fallback failed too, after: ${decision.reason}`,
      terminal: true,
    };
    return failure(call, run.classify(error), failed, { error });
  }
  call.recoveredBy = 'FALLBACK';
  call.emit('fallback.used', { reason: decision.reason });
  call.emit('call.succeeded', { attempt: call.attempts, degraded: true });
  return {
    ok: true,
    value,
    deduplicated: false,
    degraded: true,
    missingEvidence:
      tool.policy.missingEvidence ?? `${tool.name} (primary unavailable: ${classification.code})`,
  };
}
