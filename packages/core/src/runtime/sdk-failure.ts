import { deriveIdempotencyKey } from '../keys/idempotency-key.js';
import { decideRecovery } from '../policy/decide-recovery.js';
import { failureFingerprint } from '../policy/fingerprint.js';
import type { Classification } from '../types.js';
import type { AccessControl } from './access-control.js';
import { buildContract } from './recovery-contract.js';
import type { RunContext } from './run-context.js';
import type { ToolCallFailure, ToolCallRequest } from './tool-call.js';

export type SdkFailure = Omit<ToolCallRequest, 'execute' | 'signal'> & { error: unknown };

/**
 * Failures the SDK reports without ever calling the tool (invalid input, an unknown tool
 * name): counted per fingerprint like any VALIDATION failure, so the same bad call past
 * the repair budget is poison.
 */
export function createSdkFailureRecorder(
  run: RunContext,
  parts: {
    access: AccessControl;
    classify: (error: unknown) => Classification;
    repairBudget: number;
  },
): (failure: SdkFailure) => Promise<ToolCallFailure> {
  const { runId, ledger, clock, state } = run;
  const { access, classify, repairBudget } = parts;
  return async (request) => {
    const key = deriveIdempotencyKey({ runId, toolName: request.toolName, input: request.input });
    if (state.terminal) {
      // Refused after the run stopped (e.g. a tool prepareStep removed): a consequence of
      // the stop, not a new failure to repair.
      const stopped = access.runStopped(request, key);
      run.emitFailed(request, key, stopped.contract);
      return { ...stopped, error: request.error };
    }
    const classification = classify(request.error);
    const fingerprint = failureFingerprint({
      tool: request.toolName,
      input: request.input,
      classification,
    });
    const counter = `repair:${fingerprint}`;
    const repairAttempts = await ledger.getCounter(runId, counter).catch(() => 0);
    const decision = decideRecovery(
      {
        tool: request.toolName,
        failureClass: classification.failureClass,
        sideEffects: false,
        attempts: 1,
        repairAttempts,
      },
      { repairBudget, maxAttempts: 1 },
    );
    const base = {
      runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: key,
      at: clock.now(),
    };
    run.emit({
      ...base,
      type: 'failure.classified',
      attempt: 1,
      classification,
      error: request.error,
    });
    run.emit({ ...base, type: 'decision.made', attempt: 1, decision, fingerprint, repairAttempts });
    if (!decision.terminal) await ledger.incrementCounter(runId, counter).catch(() => 0);
    const contract = buildContract({
      tool: request.toolName,
      decision,
      classification,
      repairsRemaining: Math.max(0, repairBudget - repairAttempts - 1),
    });
    state.recordFailure(request.toolName, classification, decision, contract.guidance);
    if (decision.terminal) {
      run.stop(
        classification.failureClass === 'AUTHORIZATION' ? 'BLOCKED' : 'FAILED',
        decision.code,
        request.toolName,
      );
    }
    run.emitFailed(request, key, contract);
    return { ok: false, contract, decision, classification, error: request.error };
  };
}
