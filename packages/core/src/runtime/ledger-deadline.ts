import type { Clock } from '../clock.js';
import { LedgerUnavailableError } from '../errors.js';
import { answersAtOnce, type ledgerMethodNames } from '../ledger/answers-at-once.js';
import type { Ledger } from '../ledger/ledger.js';

/**
 * How long one ledger operation may take before the runtime stops waiting for it.
 * Far above a healthy store's round trip (milliseconds, also for a PostgreSQL pool that
 * queues for a connection or a Redis failover of a second or two), far below a claim's
 * lease (30 s), so a claim that answers late is still released before any other worker
 * could take its key over; and short enough that a dead store ends a call within
 * `retry.maxAttempts` of it instead of never.
 */
export const defaultLedgerTimeoutMs = 5_000;

/** The ledger methods the runtime waits for, as named in the error. */
export type LedgerOperation = Exclude<(typeof ledgerMethodNames)[number], 'get'>;

export interface LedgerDeadline {
  readonly timeoutMs: number;
  /**
   * The store's answer, or a `LedgerUnavailableError` once `timeoutMs` passed without one
   * (a hung store then fails like a store that is down). `late` receives an answer that
   * arrives after the deadline, with `context`, so that what it holds (a claim) can be
   * given back.
   */
  bound<T, C = undefined>(
    operation: LedgerOperation,
    answer: Promise<T>,
    late?: (value: T, context: C) => void,
    context?: C,
  ): Promise<T>;
}

const notYet = Symbol('not yet');
const answeredFirst = Promise.resolve(notYet);
// Stops the deadline's sleep; an Error, so that abort() builds no DOMException.
const answered = new Error('the ledger answered');

/**
 * A deadline per ledger operation on the run's clock. MemoryLedger and SqliteLedger
 * answer before they return: their answers pass through untouched. Any other store's
 * answer that is already there costs one `Promise.race` and no timer; only an answer still
 * pending after a microtask gets a sleep, which does not keep the process alive and is
 * stopped as soon as the store answers. `onUnavailable` hears the first failure of an outage
 * (a store that cannot be reached, or does not answer in time), not each retry of it; an
 * answer ends the outage.
 */
export function createLedgerDeadline(
  ledger: Pick<Ledger, 'name'>,
  clock: Clock,
  timeoutMs: number,
  onUnavailable?: ((error: LedgerUnavailableError) => void) | undefined,
): LedgerDeadline {
  // A third-party store may leave out its name; the error still says which kind failed.
  const store = typeof ledger.name === 'string' ? ledger.name : 'custom';
  const race = async <T, C>(
    operation: LedgerOperation,
    answer: Promise<T>,
    late: ((value: T, context: C) => void) | undefined,
    context: C,
  ): Promise<T> => {
    const stop = new AbortController();
    let expired = false;
    const deadline = clock.sleep(timeoutMs, stop.signal, { unref: true }).then(
      () => {
        expired = true;
        throw new LedgerUnavailableError(
          store,
          `${operation} did not answer within ${timeoutMs} ms`,
        );
      },
      () => undefined as never, // stopped: the store answered first
    );
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      stop.abort(answered);
      // Whatever the late answer or its handler does must not become an unhandled rejection.
      if (expired && late) answer.then((value) => late(value, context)).catch(() => {});
    }
  };
  let down = false;
  // An answer already there wins the race against an already resolved marker.
  const settledOrRaced = async <T, C>(
    operation: LedgerOperation,
    answer: Promise<T>,
    late: ((value: T, context: C) => void) | undefined,
    context: C,
  ): Promise<T> => {
    try {
      const first = await Promise.race([answer, answeredFirst]);
      const value = first === notYet ? await race(operation, answer, late, context) : (first as T);
      down = false;
      return value;
    } catch (error) {
      if (!down && LedgerUnavailableError.isInstance(error)) {
        down = true;
        onUnavailable?.(error);
      }
      throw error;
    }
  };
  return {
    timeoutMs,
    bound<T, C>(
      operation: LedgerOperation,
      answer: Promise<T>,
      late?: (value: T, context: C) => void,
      context?: C,
    ): Promise<T> {
      if (answersAtOnce(ledger, operation)) return answer;
      return settledOrRaced(operation, answer, late, context as C);
    },
  };
}
