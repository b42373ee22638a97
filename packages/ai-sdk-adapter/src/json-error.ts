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
