import { payloadHash } from '../../keys/idempotency-key.js';
import { decideRecovery } from '../../policy/decide-recovery.js';
import type { Classification } from '../../types.js';
import type { DecidedEnding } from '../call/call.js';
import { recover, repairFacts } from '../retry-loop.js';
import type { RunParts } from '../run-parts.js';

/** A failure the SDK reported without calling execute (invalid input, an unknown tool). */
export interface SdkFailure {
  toolName: string;
  toolCallId: string;
  input: unknown;
  error: unknown;
  /** The turn of the refused call (see `ToolCallRequest.turn`): a later write waits for its verdict. */
  turn?: unknown;
}

/**
 * Failures the SDK reports without ever calling the tool: counted per fingerprint like
 * any failure, so the same bad call past the repair budget is poison.
 */
export async function decideSdkFailure(
  run: RunParts,
  request: SdkFailure,
  known?: Classification | undefined,
): Promise<DecidedEnding> {
  const classification = known ?? run.classify(request.error);
  const { fingerprint, repairAttempts, repairsUnknown } = await repairFacts(
    run.memory,
    request.toolName,
    payloadHash(request.input),
    classification,
  );
  // The tools' loop, with the facts of a call that never ran: one attempt (nothing to send
  // again) and no dependency's budget spent (the dependency was never reached).
  const { decision } = await recover(
    {
      budget: undefined,
      dependency: request.toolName,
      decide: (facts) =>
        decideRecovery(
          {
            tool: request.toolName,
            failureClass: classification.failureClass,
            code: classification.code,
            inDoubt: false,
            attempts: 1,
            repairAttempts,
            repairsUnknown,
            ...facts,
          },
          { repairBudget: run.repairBudget, maxAttempts: 1, onPoison: run.onPoison },
        ),
      wait: async () => false,
    },
    classification,
    1,
  );
  if (run.emitter.active) {
    const base = {
      runId: run.runId,
      tool: request.toolName,
      toolCallId: request.toolCallId,
      idempotencyKey: '',
      at: run.clock.now(),
    };
    run.emitter.emit({
      ...base,
      type: 'failure.classified',
      attempt: 1,
      classification,
      error: request.error,
    });
    run.emitter.emit({
      ...base,
      type: 'decision.made',
      attempt: 1,
      decision,
      fingerprint,
      repairAttempts,
    });
  }
  if (!decision.terminal && decision.code !== 'POISON') await run.memory.addRepair(fingerprint);
  return {
    ok: false,
    kind: 'decided',
    classification,
    decision,
    error: request.error,
    repairAttempts,
    inDoubt: false,
  };
}
