/**
 * Resolves when the first of `settling` resolves; rejects with the signal's reason when
 * the caller aborts first (its own cancellation, rethrown untouched).
 */
export function untilSettledOrAborted(
  settling: readonly Promise<void>[],
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal === undefined) return Promise.race(settling);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void Promise.race(settling).then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
