import { lossyObjectKind, primitiveKind } from './lossy-kind.js';

type Node = Record<string, unknown>;

/**
 * Whether a value `JSON.stringify` has just written holds something its JSON form loses
 * (a Map, an Error, a function, NaN, ...): one walk, no paths, no allocation per value
 * beyond the stack, so plain JSON costs little more than the reads. `limit` bounds the
 * walk: every object JSON wrote cost at least one character of `jsonLength`, so a larger
 * tree changed while it was read (a getter) and counts as lossy. Values with a `toJSON`
 * serialise themselves and are not looked into.
 */
export function holdsLossyValue(root: unknown, jsonLength: number): boolean {
  if (typeof root !== 'object' || root === null) return primitiveKind(root) !== undefined;
  const stack: Node[] = [root as Node];
  let visited = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node.toJSON === 'function') continue;
    if (++visited > jsonLength) return true;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index];
        if (typeof item === 'object') {
          if (item !== null) stack.push(item as Node);
        } else if (typeof item !== 'string' && primitiveKind(item) !== undefined) return true;
      }
      continue;
    }
    if (lossyObjectKind(node) !== undefined) return true;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const item = node[key];
      if (typeof item === 'object') {
        if (item !== null) stack.push(item as Node);
      } else if (typeof item !== 'string' && primitiveKind(item) !== undefined) return true;
    }
  }
  return false;
}

/**
 * What in `value` JSON cannot hold, and where: "a Map at .items[3]", "a cycle at
 * .owner.self", "a BigInt at .amount". The slow path, run only once something was found
 * (or `JSON.stringify` threw): it tracks paths and ancestors, and follows `toJSON` as
 * `JSON.stringify` does, looking inside its output only for what makes stringify throw.
 * Undefined when it finds nothing it can name.
 */
export function describeLossyValue(value: unknown): string | undefined {
  try {
    const found = inspect(value, '', '', new Set(), false);
    return (
      found && (found.path === '' ? `is ${found.kind}` : `holds ${found.kind} at ${found.path}`)
    );
  } catch {
    return undefined; // deeper than the stack, or a value that throws whatever is asked
  }
}

interface Found {
  kind: string;
  path: string;
}

function inspect(
  original: unknown,
  key: string,
  path: string,
  ancestors: Set<object>,
  trusted: boolean,
): Found | undefined {
  let value = original;
  if (typeof value === 'object' && value !== null && typeof (value as Node).toJSON === 'function') {
    try {
      value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
    } catch {
      return { kind: 'a toJSON that throws', path: boundPath(path) };
    }
    trusted = true;
  }
  if (typeof value !== 'object' || value === null) {
    const kind = primitiveKind(value);
    // Inside a toJSON's output only what makes JSON.stringify throw counts.
    return kind !== undefined && (!trusted || typeof value === 'bigint')
      ? { kind, path: boundPath(path) }
      : undefined;
  }
  if (ancestors.has(value)) return { kind: 'a cycle', path: boundPath(path) };
  if (!trusted) {
    const kind = lossyObjectKind(value);
    if (kind !== undefined) return { kind, path: boundPath(path) };
  }
  ancestors.add(value);
  const array = Array.isArray(value) ? (value as unknown[]) : undefined;
  const keys = array ? undefined : Object.keys(value);
  const count = array ? array.length : keys!.length;
  for (let index = 0; index < count; index++) {
    const child = array ? String(index) : keys![index]!;
    const childPath = array ? `${path}[${child}]` : path + segment(child);
    let item: unknown;
    try {
      item = (value as Node)[child];
    } catch {
      return { kind: 'a property that throws when read', path: boundPath(childPath) };
    }
    const found = inspect(item, child, childPath, ancestors, trusted);
    if (found) return found;
  }
  ancestors.delete(value);
  return undefined;
}

/** `.name` for an identifier, `["a key"]` otherwise; a long key shortened. */
function segment(key: string): string {
  const shown = key.length > 40 ? `${key.slice(0, 39)}…` : key;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
}

function boundPath(path: string): string {
  return path.length > 160 ? `${path.slice(0, 80)}…${path.slice(-79)}` : path;
}
