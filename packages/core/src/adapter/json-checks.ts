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

/**
 * What `JSON.stringify` throws for a value the SDK will send as JSON (a throwing `toJSON`
 * or getter, a BigInt, a cycle, a revoked proxy), or undefined. Strings and the other
 * primitives need no look; nor does a plain object of primitives (the common result),
 * which is checked without serialising it.
 */
export function jsonError(value: unknown): unknown {
  if (typeof value !== 'object' && typeof value !== 'bigint') return undefined;
  if (value === null) return undefined;
  try {
    if (!isFlatRecord(value as object)) JSON.stringify(value);
    return undefined;
  } catch (error) {
    return error ?? new Error('JSON.stringify threw');
  }
}

/** A plain object whose enumerable values are strings, numbers, booleans or null. */
function isFlatRecord(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    const kind = typeof item;
    if (kind !== 'string' && kind !== 'number' && kind !== 'boolean' && item !== null) return false;
  }
  return true;
}
