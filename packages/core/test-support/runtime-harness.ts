import { MemoryLedger } from '../src/ledger/memory-ledger.js';
import { createRecoveryRuntime, type RecoveryRuntime } from '../src/runtime/create-runtime.js';
import type { RecoveryOptions } from '../src/runtime/options/recovery-options.js';
import type { RecoveryEvent } from '../src/runtime/run/events.js';
import { createFakeClock, type FakeClock } from '../src/testing/fake-clock.js';

/** Runs `promise` to completion, waking the fake clock's sleepers whenever it waits. */
export async function drive<T>(clock: FakeClock, promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let i = 0; i < 10_000 && !settled; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!settled) await clock.next();
  }
  return promise;
}

export interface Harness {
  runtime: RecoveryRuntime;
  clock: FakeClock;
  ledger: MemoryLedger;
  events: RecoveryEvent[];
  run(
    toolName: string,
    input: unknown,
    execute: (input: unknown) => unknown,
    toolCallId?: string,
  ): ReturnType<RecoveryRuntime['execute']>;
}

let callCounter = 0;

export function createHarness(
  options: Partial<RecoveryOptions> = {},
  shared?: { ledger?: MemoryLedger; clock?: FakeClock },
): Harness {
  const clock = shared?.clock ?? createFakeClock(1_000_000);
  const ledger = shared?.ledger ?? new MemoryLedger({ clock });
  const events: RecoveryEvent[] = [];
  const runtime = createRecoveryRuntime({
    runId: 'run-1842',
    ledger,
    clock,
    random: () => 0.5,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return {
    runtime,
    clock,
    ledger,
    events,
    run: (toolName, input, execute, toolCallId = `call_${++callCounter}`) =>
      drive(clock, runtime.execute({ toolName, toolCallId, input, execute: (i) => execute(i) })),
  };
}

/** An error shaped like what HTTP clients throw: a status and optional headers. */
export function httpFailure(
  status: number,
  message = `HTTP ${status}`,
  headers: Record<string, string> = {},
): Error {
  return Object.assign(new Error(message), { status, headers: new Headers(headers) });
}

export function timeoutAfterWrite(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}
