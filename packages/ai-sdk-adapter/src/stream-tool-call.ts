/**
 * The SDK's view of one call of a streaming tool. `run` executes the call (through the
 * recovery runtime, with retries) and hands every value the tool yields to `forward`; it
 * resolves to the value the SDK must end with, or rejects with what the SDK must see.
 *
 * The SDK treats each yielded value as a preliminary result and the last one as the final
 * result, so the final value is yielded once more only when it is not already the last one
 * forwarded (a contract after a failure, a result answered from the ledger): a call that
 * succeeds at once yields exactly what the tool yielded.
 */
export async function* streamToolCall(
  run: (forward: (value: unknown) => void) => Promise<unknown>,
): AsyncGenerator<unknown, void, undefined> {
  const pending: unknown[] = [];
  let settled: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let open = true;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  // Values are buffered, not pulled: the call runs to its end (and its ledger record is
  // written) even when the SDK stops reading early.
  const forward = (value: unknown) => {
    if (!open) return;
    pending.push(value);
    notify();
  };
  run(forward).then(
    (value) => {
      settled = { ok: true, value };
      notify();
    },
    (error: unknown) => {
      settled = { ok: false, error };
      notify();
    },
  );

  let yielded = false;
  let last: unknown;
  try {
    while (pending.length > 0 || settled === undefined) {
      if (pending.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      last = pending.shift();
      yielded = true;
      yield last;
    }
  } finally {
    open = false;
  }
  if (!settled.ok) throw settled.error;
  // With nothing yielded, the SDK's final result is `undefined`.
  if (!Object.is(settled.value, yielded ? last : undefined)) yield settled.value;
}

/** An `async function*`: the SDK streams a tool only when `execute` returns an AsyncIterable at once. */
export function isAsyncGeneratorFunction(value: unknown): boolean {
  return (
    typeof value === 'function' &&
    Object.prototype.toString.call(value) === '[object AsyncGeneratorFunction]'
  );
}
