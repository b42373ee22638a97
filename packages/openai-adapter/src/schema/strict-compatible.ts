import type { JsonSchema } from './to-json-schema.js';

// The keywords OpenAI's strict mode (Structured Outputs) accepts; anything else makes it
// reject the tool, so such a schema is sent with `strict: false` instead.
const allowedKeywords = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);

export type StrictVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Whether a schema can be sent with `strict: true`: an object at the root, every object
 * closed (`additionalProperties: false`) with all its properties required, and only
 * keywords strict mode supports.
 */
export function checkStrictCompatible(schema: JsonSchema): StrictVerdict {
  if (schema.type !== 'object') return { ok: false, reason: 'the root is not an object' };
  return checkNode(schema, '#');
}

function checkNode(node: unknown, at: string): StrictVerdict {
  if (typeof node !== 'object' || node === null || Array.isArray(node))
    return { ok: false, reason: `${at} is not a schema object` };
  const schema = node as JsonSchema;
  for (const key of Object.keys(schema)) {
    if (!allowedKeywords.has(key)) return { ok: false, reason: `${at} uses \`${key}\`` };
  }
  const properties = schema.properties;
  if (properties !== undefined || schema.type === 'object') {
    if (schema.additionalProperties !== false)
      return { ok: false, reason: `${at} does not set additionalProperties: false` };
    const names = Object.keys((properties ?? {}) as JsonSchema);
    const required = Array.isArray(schema.required) ? schema.required : [];
    const optional = names.find((name) => !required.includes(name));
    if (optional !== undefined)
      return { ok: false, reason: `${at}/properties/${optional} is optional` };
  }
  for (const [key, child] of children(schema)) {
    const verdict = checkNode(child, `${at}/${key}`);
    if (!verdict.ok) return verdict;
  }
  return { ok: true };
}

function children(schema: JsonSchema): [string, unknown][] {
  const list: [string, unknown][] = [];
  for (const group of ['properties', '$defs', 'definitions'] as const) {
    const value = schema[group];
    if (typeof value === 'object' && value !== null)
      for (const [name, child] of Object.entries(value)) list.push([`${group}/${name}`, child]);
  }
  if (schema.items !== undefined) list.push(['items', schema.items]);
  if (Array.isArray(schema.anyOf))
    for (const [index, child] of schema.anyOf.entries()) list.push([`anyOf/${index}`, child]);
  return list;
}
