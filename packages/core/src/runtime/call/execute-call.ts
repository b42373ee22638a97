import { AttemptTimeoutError } from '../../errors.js';
import type { ClaimResult } from '../../ledger/ledger.js';
import { isThenable } from '../../thenable.js';
import { type CallContext, runInCallContext } from '../call-context.js';
import { countSuccess } from '../retry-loop.js';
import type { Call, CallEnding } from './call.js';
import { checkResult } from './check-result.js';
import { engineLeaseMs } from './engine-run.js';
import { handleFailure, resolveClaimedDoubt } from './handle-failure.js';
import {
  duplicate,
  keyFailure,
  ledgerFault,
  ownedElsewhere,
  releaseLate,
} from './ledger-answers.js';

const pollMs = 100;

/**
 * One tool call, attempt by attempt. A read runs at once and retries transient faults. A
 * write (or a tool that may write) is claimed in the ledger first, and once an attempt may
 * have landed ("in doubt") nothing is re-sent unless a reconcile proves it did not happen
 * or the downstream dedupes on the key. A failed attempt is decided and acted on in
 * `handle-failure.ts`; the call's state changes only through `Call`'s transitions.
 */
export function executeCall(call: Call): Promise<CallEnding> {
  return call.tool.claims ? executeClaimed(call) : attempt(call);
}

/**
 * Claims the write's key before anything is sent, then attempts. A completed key answers
 * with the stored result; an in-flight key is waited on (bounded); a store that is
 * unreachable or does not answer within `ledgerTimeoutMs` is retried like any transient
 * fault and, if it stays so, the write is not executed (fail closed). The first answer is
 * read in a plain `then` (a claim that is simply granted has no async frame); anything
 * else goes on in `claimLoop`.
 */
function executeClaimed(call: Call): Promise<CallEnding> {
  const unkeyed = keyFailure(call);
  if (unkeyed) return Promise.resolve(unkeyed);
  const { run } = call;
  const waitUntil = run.clock.now() + run.inFlightWaitMs;
  const onward = (ended: CallEnding | undefined) => ended ?? attemptClaimed(call);
  if (run.engine) return claimLoop(call, waitUntil).then(onward);
  let asked: Promise<ClaimResult>;
  try {
    asked = askClaim(call);
  } catch (error) {
    return claimLoop(call, waitUntil, { threw: true, error }).then(onward);
  }
  return asked.then(
    (claimed) =>
      claimed.status === 'in_flight'
        ? claimLoop(call, waitUntil, { threw: false, claimed }).then(onward)
        : onward(answerClaim(call, claimed)),
    (error: unknown) => claimLoop(call, waitUntil, { threw: true, error }).then(onward),
  );
}

/**
 * The claim held: the attempts, after a reconcile when an earlier claimer may have
 * written. However they end the claim is settled: a success stores its result; leaving
 * with the claim still held (a failure, an abort) keeps the truth, in doubt → uncertain
 * (`attemptsAfter` and `reconcileThenAttempt` let go on their way out).
 */
function attemptClaimed(call: Call): Promise<CallEnding> {
  return call.inDoubt ? reconcileThenAttempt(call) : attempt(call);
}

async function reconcileThenAttempt(call: Call): Promise<CallEnding> {
  try {
    return (await resolveClaimedDoubt(call)) ?? (await attempt(call));
  } finally {
    await letGo(call);
  }
}

/** A claim still held is settled: in doubt → uncertain, else released. */
function letGo(call: Call): Promise<void> {
  return call.holdsClaim ? call.settle(call.inDoubt ? 'uncertain' : 'release') : settledAlready;
}

const settledAlready: Promise<void> = Promise.resolve();

/** How an attempt ended: its value, or what it threw. */
type AttemptResult = { threw: false; value: unknown } | { threw: true; error: unknown };

/**
 * Attempts until the call ends: a value, or a decision that ends it. The first attempt is
 * started synchronously, and a value that needs no check ends the call in a plain `then`
 * (its claim settled first, if it holds one): the common path, a read or a write that
 * succeeds, has no async frame of its own. Everything else goes on in `attemptsAfter`,
 * which a throw while settling joins as it would have inside it.
 */
function attempt(call: Call): Promise<CallEnding> {
  try {
    beginAttempt(call);
  } catch (error) {
    return letGo(call).then(() => Promise.reject(error));
  }
  let produced: unknown;
  try {
    produced = runAttempt(call);
  } catch (error) {
    return attemptsAfter(call, { threw: true, error });
  }
  if (!isThenable(produced)) return attemptsAfter(call, { threw: false, value: produced });
  return Promise.resolve(produced).then(
    (value) => {
      if (call.tool.policy.check) return attemptsAfter(call, { threw: false, value });
      if (!call.holdsClaim) return succeeded(call, value);
      try {
        return settleSuccess(call, value);
      } catch (error) {
        return attemptsAfter(call, { threw: true, error });
      }
    },
    (error: unknown) => attemptsAfter(call, { threw: true, error }),
  );
}

/**
 * The call from the end of an attempt on: its value checked and its claim settled, or its
 * failure decided and acted on, attempt after attempt until the call ends.
 */
async function attemptsAfter(call: Call, first: AttemptResult): Promise<CallEnding> {
  try {
    return await attemptsUntilEnded(call, first);
  } finally {
    await letGo(call);
  }
}

async function attemptsUntilEnded(call: Call, first: AttemptResult): Promise<CallEnding> {
  const { request } = call;
  let result = first;
  for (;;) {
    let ending: CallEnding | undefined;
    try {
      if (result.threw) throw result.error;
      const { value } = result;
      const rejected = call.tool.policy.check ? checkResult(call, value) : undefined;
      if (!rejected)
        return call.holdsClaim ? await settleSuccess(call, value) : succeeded(call, value);
      ending = await handleFailure(call, rejected.error, rejected.classification);
    } catch (error) {
      // A pause is not a failure: nothing is decided, and the claim is let go below.
      if (request.isPause?.(error) === true) throw error;
      if (isCallerAbort(error, request.signal)) {
        // Cancelled mid-attempt: a write may have landed, so its key stays in doubt.
        call.mayHaveLanded();
        throw error;
      }
      ending = await handleFailure(call, error);
    }
    if (ending) return ending;
    beginAttempt(call);
    result = await settledAttempt(call);
  }
}

/**
 * Counts and announces the next attempt. Aborted before it (the caller cancelled, or an
 * engine ended the execution while the call waited), it throws: nothing more is sent, and
 * a claim not in doubt is let go.
 */
function beginAttempt(call: Call): void {
  const { run, request } = call;
  request.signal?.throwIfAborted();
  call.attempts++;
  if (run.emitter.active)
    call.emit('call.started', { attempt: call.attempts, input: request.input });
}

async function settledAttempt(call: Call): Promise<AttemptResult> {
  try {
    return { threw: false, value: await runAttempt(call) };
  } catch (error) {
    return { threw: true, error };
  }
}

/**
 * A write's success: its result stored once; a tool that may write just lets go of its
 * claim (it was claimed to keep a doubt, not to deduplicate its successes). Never rejects:
 * settling a claim never does.
 */
function settleSuccess(call: Call, value: unknown): Promise<CallEnding> {
  const ended = () => succeeded(call, value);
  return call.tool.effects === 'write'
    ? call.storeResult(value, ended)
    : call.settle('release', undefined, ended);
}

function succeeded(call: Call, value: unknown): CallEnding {
  const { run } = call;
  // A shared budget's answer is not worth waiting for on the success path.
  countSuccess(run.budget, call.tool.dependency);
  if (run.emitter.active) call.emit('call.succeeded', { attempt: call.attempts, degraded: false });
  return { ok: true, value, deduplicated: false, degraded: false };
}

/** The ledger's answer to the call's claim, bounded by the ledger's deadline. */
function askClaim(call: Call): Promise<ClaimResult> {
  const { run } = call;
  return run.deadline.bound(
    'claim',
    run.ledger.claim(
      run.engine
        ? { key: call.key, payloadHash: call.payloadHash, leaseMs: engineLeaseMs }
        : { key: call.key, payloadHash: call.payloadHash },
    ),
    releaseLate,
    call,
  );
}

/** A claim the ledger answered, other than in flight: held (undefined), or how the call ends. */
function answerClaim(
  call: Call,
  claimed: Exclude<ClaimResult, { status: 'in_flight' }>,
): CallEnding | undefined {
  switch (claimed.status) {
    case 'acquired':
      call.claimed(claimed.token, claimed.previous !== undefined);
      return undefined;
    case 'completed':
      return duplicate(call, claimed.result);
    case 'conflict':
      return ownedElsewhere(
        call,
        'PERMANENT',
        'IDEMPOTENCY_CONFLICT',
        `key ${call.key} was used with a different payload`,
      );
  }
}

/** Claims until the claim is held or the call ends: waits for a key in flight, retries a ledger fault. */
async function claimLoop(
  call: Call,
  waitUntil: number,
  first?: { threw: false; claimed: ClaimResult } | { threw: true; error: unknown },
): Promise<CallEnding | undefined> {
  const { run, request } = call;
  const { engine } = run;
  let given = first;
  for (let tries = 1; ; ) {
    let claimed: ClaimResult;
    try {
      if (given) {
        const answer = given;
        given = undefined;
        if (answer.threw) throw answer.error;
        claimed = answer.claimed;
      } else {
        claimed =
          engine?.held.has(call.key) === true
            ? { status: 'in_flight', leaseExpiresAt: waitUntil }
            : await askClaim(call);
      }
    } catch (error) {
      // Whatever the store threw, or its silence, nothing was sent: a fault of the ledger.
      const ended = await ledgerFault(call, error, tries);
      if (ended) return ended;
      tries++;
      continue;
    }
    if (claimed.status !== 'in_flight') return answerClaim(call, claimed);
    if (engine && !engine.held.has(call.key)) {
      // An earlier execution's claim kept for its wait: the rest is waited out, then the
      // claim is taken over.
      await engine.sleep(Math.max(1, claimed.leaseExpiresAt - run.clock.now()), request.signal);
      continue;
    }
    const remaining = waitUntil - run.clock.now();
    if (remaining > 0) {
      await run.clock.sleep(Math.min(pollMs, remaining), request.signal);
      continue;
    }
    call.emit('call.in-flight', {});
    return ownedElsewhere(
      call,
      'UNKNOWN_OUTCOME',
      'IN_FLIGHT',
      `the same ${call.tool.name} operation is in flight elsewhere`,
      'in-flight',
    );
  }
}

function isCallerAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true &&
    (error === signal.reason || (error instanceof Error && error.name === 'AbortError'))
  );
}

// Stops a deadline timer that is no longer needed; a reason, so abort() builds no DOMException.
const settled = new Error('attempt settled');

/**
 * Runs one attempt of the tool inside `callContext()`. With a `timeoutMs`, the tool gets a
 * signal that also aborts at the deadline, and the attempt is no longer awaited once the
 * deadline passed (a tool that ignores its signal cannot hang the run): it rejects with an
 * `AttemptTimeoutError` instead.
 */
export function runAttempt(call: Call): unknown {
  const context = attemptContext(call);
  const { request } = call;
  const timeoutMs = call.tool.timeoutMs;
  if (timeoutMs === undefined) {
    const execute = () => runInCallContext(context, request.execute, request.input, request.signal);
    return call.span ? call.span.run(execute) : execute();
  }
  return withDeadline(call, context, timeoutMs);
}

async function withDeadline(call: Call, context: CallContext, timeoutMs: number): Promise<unknown> {
  const { request } = call;
  const deadline = new AbortController();
  const timer = new AbortController();
  const signal = request.signal
    ? AbortSignal.any([request.signal, deadline.signal])
    : deadline.signal;
  const expired = call.run.clock.sleep(timeoutMs, timer.signal).then(
    () => {
      const error = new AttemptTimeoutError(call.tool.name, timeoutMs);
      deadline.abort(error);
      throw error;
    },
    () => undefined as never, // stopped: the attempt settled first
  );
  const execute = () => runInCallContext(context, request.execute, request.input, signal);
  const attempt = Promise.resolve().then(() => (call.span ? call.span.run(execute) : execute()));
  // Whatever the abandoned attempt does later must not become an unhandled rejection.
  attempt.catch(() => {});
  // The caller's abort ends the attempt at once too, even one that ignores its signal.
  const cancelled = request.signal
    ? new Promise<never>((_, reject) => {
        const signal = request.signal!;
        if (signal.aborted) reject(signal.reason);
        else
          signal.addEventListener('abort', () => reject(signal.reason), {
            once: true,
            signal: timer.signal,
          });
      })
    : undefined;
  cancelled?.catch(() => {});
  try {
    return await Promise.race(cancelled ? [attempt, expired, cancelled] : [attempt, expired]);
  } finally {
    timer.abort(settled);
  }
}

/**
 * The context of one attempt. `idempotencyKey` is a getter on the prototype, derived on
 * first read (a read tool that never asks never hashes its input); read it rather than
 * spreading the context.
 */
class AttemptContext implements CallContext {
  readonly runId: string;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly attempt: number;
  readonly #call: Call;

  constructor(call: Call) {
    this.#call = call;
    this.runId = call.run.runId;
    this.toolName = call.tool.name;
    this.toolCallId = call.request.toolCallId;
    this.attempt = call.attempts;
  }

  get idempotencyKey(): string {
    return this.#call.key;
  }

  toJSON() {
    const { runId, toolName, toolCallId, attempt, idempotencyKey } = this;
    return { runId, toolName, toolCallId, attempt, idempotencyKey };
  }
}

function attemptContext(call: Call): CallContext {
  return new AttemptContext(call);
}
