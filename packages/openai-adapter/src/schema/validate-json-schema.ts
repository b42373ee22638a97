import type { JsonSchema } from './to-json-schema.js';

/** One problem with a value, zod-style: `path` names the offending field. */
export interface SchemaIssue {
  path: (string | number)[];
  message: string;
}

/**
 * A small JSON Schema check for plain-schema tools: `type`, `required`, `properties`,
 * closed objects, `items`, `enum`, `const` and `anyOf`. Enough to catch a model's wrong
 * or missing field before `execute` runs; not a full validator (use zod for that).
 */
export function validateJsonSchema(
  value: unknown,
  schema: unknown,
  path: (string | number)[] = [],
): SchemaIssue | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as JsonSchema;
  if (Array.isArray(s.anyOf)) {
    const matches = s.anyOf.some((option) => !validateJsonSchema(value, option, path));
    if (!matches) return { path, message: 'does not match any allowed shape' };
  }
  if (s.type !== undefined && !matchesType(value, s.type))
    return { path, message: `expected ${[s.type].flat().join(' or ')}, got ${typeOf(value)}` };
  if (Array.isArray(s.enum) && !s.enum.some((option) => sameValue(option, value)))
    return { path, message: `expected one of ${JSON.stringify(s.enum)}` };
  if ('const' in s && !sameValue(s.const, value))
    return { path, message: `expected ${JSON.stringify(s.const)}` };
  if (isPlainObject(value)) return checkObject(value, s, path);
  if (Array.isArray(value) && typeof s.items === 'object' && !Array.isArray(s.items)) {
    for (const [index, item] of value.entries()) {
      const issue = validateJsonSchema(item, s.items, [...path, index]);
      if (issue) return issue;
    }
  }
  return undefined;
}

function checkObject(
  value: Record<string, unknown>,
  s: JsonSchema,
  path: (string | number)[],
): SchemaIssue | undefined {
  const properties = (isPlainObject(s.properties) ? s.properties : {}) as JsonSchema;
  for (const name of Array.isArray(s.required) ? s.required : []) {
    if (typeof name === 'string' && value[name] === undefined)
      return { path: [...path, name], message: 'is required' };
  }
  for (const [name, field] of Object.entries(value)) {
    if (name in properties) {
      const issue = validateJsonSchema(field, properties[name], [...path, name]);
      if (issue) return issue;
    } else if (s.additionalProperties === false) {
      return { path: [...path, name], message: 'is not an allowed field' };
    }
  }
  return undefined;
}

function matchesType(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    if (t === 'integer') return Number.isInteger(value);
    if (t === 'number') return typeof value === 'number' && Number.isFinite(value);
    if (t === 'null') return value === null;
    if (t === 'array') return Array.isArray(value);
    if (t === 'object') return isPlainObject(value);
    return typeof t !== 'string' || typeof value === t;
  });
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
