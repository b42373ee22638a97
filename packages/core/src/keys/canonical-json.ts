/**
 * Canonical JSON in the spirit of RFC 8785 (JSON Canonicalization Scheme): object keys
 * sorted by UTF-16 code units, no whitespace, numbers in ECMAScript shortest form (what
 * `JSON.stringify` already does), `undefined` fields dropped. The same logical value
 * always gives the same text, whatever the key order it was built with.
 *
 * Values JSON cannot express are mapped rather than rejected, so a key can always be
 * derived: non-finite numbers → null, bigint → decimal string, Date → ISO string,
 * Map/Set → entries/array, cycles → "[Circular]".
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'function':
    case 'symbol':
      return 'null';
  }
  const object = value as object;
  if (seen.has(object)) return '"[Circular]"';
  seen.add(object);
  try {
    if (object instanceof Date)
      return JSON.stringify(Number.isNaN(object.getTime()) ? null : object.toISOString());
    if (Array.isArray(object)) return `[${object.map((item) => write(item, seen)).join(',')}]`;
    if (object instanceof Set) return write([...object], seen);
    if (object instanceof Map) return write(Object.fromEntries(object), seen);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return write(toJSON.call(object), seen);
    const entries = Object.keys(object)
      .filter((key) => (object as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${write((object as Record<string, unknown>)[key], seen)}`,
      );
    return `{${entries.join(',')}}`;
  } finally {
    seen.delete(object);
  }
}
