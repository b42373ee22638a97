import type { Classification } from '../types.js';
import { abortDecision, failCall } from './call-failure.js';
import { type CallScope, toJson } from './call-scope.js';
import type { ToolCallResult } from './tool-call.js';

export type DoubtResolution = { kind: 'done'; result: ToolCallResult } | { kind: 'proceed' };

/**
 * A previous attempt may have written. Prove it either way (reconcile), replay behind
 * the same key when the downstream dedupes on it, or stop: reconcile by hand.
 */
export async function resolveDoubt(scope: CallScope): Promise<DoubtResolution> {
  const { policy, request, key, runId, state } = scope.env;
  const tool = request.toolName;
  if (policy.reconcile) {
    try {
      const found = await policy.reconcile(request.input, {
        runId,
        toolName: tool,
        idempotencyKey: key,
      });
      scope.env.emit({ ...scope.base(), type: 'reconcile.finished', happened: found.happened });
      if (!found.happened) return { kind: 'proceed' };
      const value = found.result ?? null;
      await scope.settle('complete', () => toJson(value));
      state.recordSuccess(tool);
      scope.env.emit({ ...scope.base(), type: 'call.deduplicated', source: 'reconcile' });
      return { kind: 'done', result: { ok: true, value, deduplicated: true, degraded: false } };
    } catch (error) {
      const decision = abortDecision(
        'RECONCILE_FAILED',
        'the reconcile read failed, so the write stays in doubt',
      );
      const result = await failCall(scope, scope.env.classify(error), decision, {
        attempts: 0,
        inDoubt: true,
        error,
      });
      return { kind: 'done', result };
    }
  }
  if (policy.idempotent) return { kind: 'proceed' };
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'IN_DOUBT',
    message: `an earlier ${tool} attempt may have landed`,
  };
  const decision = abortDecision(
    'RECONCILE_BY_HAND',
    'side effects with no checkpoint: reconcile by hand',
  );
  return {
    kind: 'done',
    result: await failCall(scope, classification, decision, { attempts: 0, inDoubt: true }),
  };
}
