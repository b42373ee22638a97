/**
 * Canonical JSON in the spirit of RFC 8785 (JSON Canonicalization Scheme): object keys
 * sorted by UTF-16 code units, no whitespace, numbers in ECMAScript shortest form (what
 * `JSON.stringify` already does), `undefined` fields dropped, array holes written as
 * `null` (as `JSON.stringify` does). The same logical value always gives the same text,
 * whatever the key order it was built with.
 *
 * Values JSON cannot express are mapped rather than rejected, so a key can always be
 * derived: non-finite numbers → null, bigint → decimal string, Date → ISO string,
 * Map/Set → entries/array, functions and symbols → null, cycles → "[Circular]".
 */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}

// `ancestors` holds the objects on the path from the root to the value being written: a
// value met again among them is a cycle; one met again elsewhere (a shared child) is not.
// A depth-tracked array costs less than a Set per call: paths are short.
function write(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      // For finite numbers, string conversion is the ECMAScript form JSON uses (-0 → "0").
      return Number.isFinite(value) ? `${value}` : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return `"${value}"`;
    case 'object':
      return value === null ? 'null' : writeObject(value, ancestors);
    default:
      // undefined (top level or in an array), function, symbol
      return 'null';
  }
}

function writeObject(object: object, ancestors: object[]): string {
  if (ancestors.includes(object)) return '"[Circular]"';
  if (object instanceof Date)
    return Number.isNaN(object.getTime()) ? 'null' : `"${object.toISOString()}"`;
  ancestors.push(object);
  let out: string;
  if (Array.isArray(object)) out = writeArray(object, ancestors);
  else if (object instanceof Set) out = writeArray([...object], ancestors);
  else if (object instanceof Map) out = writeRecord(mapRecord(object, ancestors), ancestors);
  else {
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    out =
      typeof toJSON === 'function'
        ? write(toJSON.call(object), ancestors)
        : writeRecord(object as Record<string, unknown>, ancestors);
  }
  // An exception thrown above ends the whole call, so the path needs no unwinding then.
  ancestors.pop();
  return out;
}

// A Map as the object `Object.fromEntries` would make of it (keys as property names, a
// later duplicate wins, symbol keys dropped), except that a key with no string form (a
// null-prototype object, a throwing toString) is named by its own canonical text
// instead of throwing.
function mapRecord(map: Map<unknown, unknown>, ancestors: object[]): Record<string, unknown> {
  const record: Record<string, unknown> = Object.create(null);
  for (const [key, value] of map) {
    if (typeof key === 'symbol') continue;
    let name: string;
    try {
      name = String(key);
    } catch {
      name = write(key, ancestors);
    }
    record[name] = value;
  }
  return record;
}

function writeArray(array: readonly unknown[], ancestors: object[]): string {
  const length = array.length;
  if (length === 0) return '[]';
  // Indexing (not map/forEach) visits holes, which read as undefined and become null.
  let out = `[${write(array[0], ancestors)}`;
  for (let index = 1; index < length; index += 1) out += `,${write(array[index], ancestors)}`;
  return `${out}]`;
}

function writeRecord(record: Record<string, unknown>, ancestors: object[]): string {
  const keys = sortKeys(Object.keys(record));
  let out = '{';
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${quote(key)}:${write(field, ancestors)}`;
  }
  return `${out}}`;
}

// RFC 8785 orders keys by UTF-16 code units, which is what `<` on strings and the default
// `sort()` compare. The default sort has a high fixed cost; tool inputs have few keys, and
// an insertion sort in place is several times cheaper for them.
function sortKeys(keys: string[]): string[] {
  if (keys.length > 24) return keys.sort();
  for (let index = 1; index < keys.length; index += 1) {
    const key = keys[index] as string;
    let slot = index;
    while (slot > 0 && (keys[slot - 1] as string) > key) {
      keys[slot] = keys[slot - 1] as string;
      slot -= 1;
    }
    keys[slot] = key;
  }
  return keys;
}

// Short strings without characters JSON escapes are quoted as they are; a scan costs less
// than a call to JSON.stringify. Anything else, and long text, goes to JSON.stringify.
function quote(text: string): string {
  if (text.length > 64) return JSON.stringify(text);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return JSON.stringify(text);
  }
  return `"${text}"`;
}
