// Thrown values are untrusted: getters and proxy traps may throw, proxies may be revoked.
// Every read goes through these helpers, which turn any failure into `undefined`.

/** `value[key]`, or undefined when `value` is not an object or the read throws. */
export function readProperty(value: unknown, key: PropertyKey): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    return undefined;
  }
  try {
    return Reflect.get(value, key);
  } catch {
    return undefined;
  }
}

/** `value[key]` when it is a string. */
export function readString(value: unknown, key: PropertyKey): string | undefined {
  const property = readProperty(value, key);
  return typeof property === 'string' ? property : undefined;
}

const maxHeaders = 200;

function toHeaderValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.join(', ');
  }
  return undefined;
}

/**
 * Header name/value pairs (names lower-cased) from a fetch `Headers` object, anything
 * with `forEach(value, name)`, or a plain object. Bounded; never throws.
 */
export function readHeaders(source: unknown): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (typeof source !== 'object' || source === null) return pairs;
  try {
    const forEach = readProperty(source, 'forEach');
    if (typeof forEach === 'function' && typeof readProperty(source, 'get') === 'function') {
      forEach.call(source, (value: unknown, name: unknown) => {
        const text = toHeaderValue(value);
        if (pairs.length < maxHeaders && typeof name === 'string' && text !== undefined) {
          pairs.push([name.toLowerCase(), text]);
        }
      });
      return pairs;
    }
    for (const name of Object.keys(source).slice(0, maxHeaders)) {
      const text = toHeaderValue(readProperty(source, name));
      if (text !== undefined) pairs.push([name.toLowerCase(), text]);
    }
  } catch {
    // Keep whatever was read before the failure.
  }
  return pairs;
}

/** `value[key]` when it is a finite number. */
export function readNumber(value: unknown, key: PropertyKey): number | undefined {
  const property = readProperty(value, key);
  return typeof property === 'number' && Number.isFinite(property) ? property : undefined;
}

/**
 * The class name of `value` (`SimpleError`, `WatchError`): some clients leave `name` at
 * `"Error"`, so the constructor is the only place their kind shows.
 */
export function readClassName(value: unknown): string | undefined {
  return readString(readProperty(value, 'constructor'), 'name');
}
