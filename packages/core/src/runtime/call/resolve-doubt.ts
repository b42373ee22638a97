import { AttemptTimeoutError } from '../../errors.js';
import type { Classification } from '../../types.js';
import type { Call } from './call.js';
import type { CallEnding } from './call-ending.js';
import { decideForCall } from './decide-for-call.js';
import { failure } from './fail-call.js';
import { completeWithResult } from './store-result.js';

const settledReason = new Error('reconcile settled');

export type ReconcileAnswer =
  | { happened: true; result: unknown }
  | { happened: false }
  | { invalid: Classification; error?: unknown };

/**
 * Asks the tool's `reconcile` what happened downstream. Only the two documented answers
 * count — `{ happened: true, result? }` and `{ happened: false }` with a real boolean —
 * anything else (`true`, `'yes'`, `{ happend: true }`, a throw) proves nothing, so the
 * write stays in doubt and is never re-sent.
 */
export async function askReconcile(call: Call): Promise<ReconcileAnswer> {
  const { run, tool, request } = call;
  const limitMs = tool.timeoutMs;
  const stop = new AbortController();
  let answer: unknown;
  try {
    const read = Promise.resolve(
      tool.policy.reconcile!(request.input, {
        runId: run.runId,
        toolName: tool.name,
        idempotencyKey: call.key,
      }),
    );
    read.catch(() => {}); // an abandoned read must not become an unhandled rejection
    // With a deadline (the tool's `timeoutMs`), a read that never settles cannot hang the
    // run: past the deadline it proves nothing.
    const expired =
      limitMs === undefined
        ? undefined
        : run.clock.sleep(limitMs, stop.signal).then(
            () => {
              throw new AttemptTimeoutError(`${tool.name} reconcile`, limitMs);
            },
            () => undefined,
          );
    answer = await (expired ? Promise.race([read, expired]) : read);
  } catch (error) {
    const read = run.classify(error);
    // Whatever the read's own failure was, what it leaves is a write in doubt.
    return {
      invalid: { ...read, failureClass: 'UNKNOWN_OUTCOME', code: 'RECONCILE_FAILED' },
      error,
    };
  } finally {
    stop.abort(settledReason);
  }
  const happened =
    typeof answer === 'object' && answer !== null
      ? (answer as { happened?: unknown }).happened
      : undefined;
  if (happened === true) return { happened: true, result: (answer as { result?: unknown }).result };
  if (happened === false) return { happened: false };
  return {
    invalid: {
      failureClass: 'UNKNOWN_OUTCOME',
      code: 'RECONCILE_FAILED',
      message: `reconcile answered ${describe(answer)}; expected { happened: true, result? } or { happened: false }`,
    },
  };
}

/**
 * Acts on a reconcile answer: happened → the stored result (nothing re-sent); invalid →
 * the call ends in doubt; did not happen → undefined, and the write is no longer in doubt.
 */
export async function settleReconcile(
  call: Call,
  answer: ReconcileAnswer,
): Promise<CallEnding | undefined> {
  call.emit('reconcile.finished', { happened: 'invalid' in answer ? 'invalid' : answer.happened });
  if ('invalid' in answer) {
    const decision = decideForCall(call, answer.invalid, { reconciled: 'failed' });
    return failure(call, answer.invalid, decision, { error: answer.error });
  }
  if (!answer.happened) {
    call.inDoubt = false;
    return undefined;
  }
  await completeWithResult(call, answer.result);
  call.emit('call.deduplicated', { source: 'reconcile' });
  call.recoveredBy = 'RECONCILE';
  return {
    ok: true,
    value: answer.result,
    deduplicated: true,
    degraded: false,
  };
}

/**
 * The claim found an earlier attempt that may have written (a dead worker, an uncertain
 * record): prove it either way, replay behind the same key, or stop before sending.
 */
export async function resolveClaimedDoubt(call: Call): Promise<CallEnding | undefined> {
  const classification: Classification = {
    failureClass: 'UNKNOWN_OUTCOME',
    code: 'IN_DOUBT',
    message: `an earlier ${call.tool.name} attempt may have landed`,
  };
  const decision = decideForCall(call, classification);
  if (decision.action === 'RECONCILE') return settleReconcile(call, await askReconcile(call));
  if (decision.action === 'REPLAY') return undefined; // the downstream dedupes on the key
  return failure(call, classification, decision);
}

function describe(answer: unknown): string {
  if (answer === undefined) return 'nothing';
  try {
    const text = JSON.stringify(answer);
    return text === undefined ? typeof answer : text.slice(0, 80);
  } catch {
    return `a ${typeof answer}`;
  }
}
