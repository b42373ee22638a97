/**
 * The text the model is sent for a successful call's value. JSON where JSON can hold it; a
 * BigInt as its digits and a cycle as "[Circular]" rather than the "[object Object]" that
 * `String()` would give (the model could make nothing of it). The ledger is not affected:
 * it never stores such a value (see `RESULT_NOT_STORED`). A value JSON still rejects (a
 * throwing `toJSON` or getter, a revoked proxy) is `{ error }`: the caller tells the model
 * the call failed rather than sending "[object Object]", or throwing out of the loop.
 */
export function modelText(value: unknown): string | { error: unknown } {
  if (typeof value === 'string') return value;
  const ancestors: unknown[] = [];
  try {
    return (
      JSON.stringify(value ?? null, function (this: unknown, _key, item: unknown) {
        if (typeof item === 'bigint') return item.toString();
        if (typeof item !== 'object' || item === null) return item;
        // `this` is the object holding `item`: drop the ancestors that are not its parents.
        while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
        if (ancestors.includes(item)) return '[Circular]';
        ancestors.push(item);
        return item;
      }) ?? 'null'
    );
  } catch (error) {
    return { error: error ?? new Error('JSON.stringify threw') };
  }
}
