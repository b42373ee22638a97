import { types } from 'node:util';

/**
 * What a primitive is when JSON cannot hold it: a BigInt (a throw), a function or symbol
 * (left out, or `null` in an array), a number that is not finite (`null`). Undefined when
 * JSON holds it, `undefined` included (absent in an object, `null` in an array).
 */
export function primitiveKind(value: unknown): string | undefined {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? undefined : String(value);
    case 'bigint':
      return 'a BigInt';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return undefined;
  }
}

/**
 * What an object is when its JSON form silently loses its content: a Map, a Set or an
 * Error writes `{}`, a typed array an object of indices, a class instance without own
 * enumerable data `{}`. Undefined for what JSON holds: arrays, plain objects, class
 * instances with own data, boxed strings, numbers and booleans. Ask only of an object
 * without `toJSON` (that one serialises itself, as a Date does).
 */
export function lossyObjectKind(value: object): string | undefined {
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype === Object.prototype || prototype === null || Array.isArray(value)) {
    return undefined;
  }
  if (types.isMap(value)) return 'a Map';
  if (types.isSet(value)) return 'a Set';
  if (types.isWeakMap(value)) return 'a WeakMap';
  if (types.isWeakSet(value)) return 'a WeakSet';
  if (types.isNativeError(value) || value instanceof Error) return `an Error (${nameOf(value)})`;
  if (types.isRegExp(value)) return 'a RegExp';
  if (types.isTypedArray(value)) return withArticle(nameOf(value));
  if (types.isAnyArrayBuffer(value)) return 'an ArrayBuffer';
  if (types.isDataView(value)) return 'a DataView';
  if (types.isPromise(value)) return 'a Promise';
  if (types.isSymbolObject(value)) return 'a symbol';
  if (types.isBoxedPrimitive(value)) return undefined; // JSON unwraps it
  // A plain object made in another realm (a vm context, a worker's structured clone).
  if (Object.getPrototypeOf(prototype) === null) return undefined;
  if (Object.keys(value).length > 0) return undefined;
  return `${withArticle(nameOf(value))} with no own enumerable data`;
}

/** The constructor's name, bounded, or `object` when it has none worth showing. */
function nameOf(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && /^[\w$]{1,40}$/.test(name) ? name : 'object';
}

function withArticle(name: string): string {
  // "a Uint8Array": a leading U is read as "you".
  return `${/^[aeio]/i.test(name) ? 'an' : 'a'} ${name}`;
}
