import { readProperty } from './safe-read.js';

function readPathSegment(segment: unknown): string | undefined {
  if (typeof segment === 'string') return segment;
  if (typeof segment === 'number') return String(segment);
  // Standard Schema path segments may be `{ key }` objects.
  const key = readProperty(segment, 'key');
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return undefined;
}

function readIssuePath(issue: unknown): string | undefined {
  const path = readProperty(issue, 'path');
  if (!Array.isArray(path) || path.length === 0) return undefined;
  const segments: string[] = [];
  for (const segment of path.slice(0, 16)) {
    const text = readPathSegment(segment);
    if (text === undefined) return undefined;
    segments.push(text);
  }
  return segments.join('.');
}

// A field name or a dotted / indexed path to one, not a sentence.
const fieldName = /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*$/;

// Where a pydantic / FastAPI location starts: the part of the request, not a field.
const requestParts = new Set(['body', 'query', 'path', 'header', 'cookie']);

/** FastAPI's `detail: [{ loc: ['body', 'amount'], msg }]`: the location past its request part. */
function readLocation(issue: unknown): string | undefined {
  const loc = readProperty(issue, 'loc');
  if (!Array.isArray(loc)) return undefined;
  const path = loc.slice(0, 16);
  if (requestParts.has(String(path[0]))) path.shift();
  return readIssuePath({ path });
}

/**
 * The offending input field: the path of the first validation issue, dot-joined
 * (`user.email`), from a zod error's `issues` or an issue list used as `cause` (the AI
 * SDK's Standard Schema validation); a FastAPI `detail` list's `loc`; the `param` an
 * OpenAI or Stripe error names; or a body's own `field`.
 */
export function readIssueField(node: unknown): string | undefined {
  for (const candidate of [readProperty(node, 'issues'), readProperty(node, 'cause')]) {
    try {
      if (!Array.isArray(candidate)) continue;
      for (const issue of candidate.slice(0, 16)) {
        const field = readIssuePath(issue);
        if (field !== undefined) return field;
      }
    } catch {
      // A hostile array (revoked proxy) names no field.
    }
  }
  try {
    const detail = readProperty(node, 'detail');
    if (Array.isArray(detail)) {
      for (const issue of detail.slice(0, 16)) {
        const field = readLocation(issue);
        if (field !== undefined) return field;
      }
    }
  } catch {
    // As above.
  }
  const param = readProperty(node, 'param');
  if (typeof param === 'string' && param !== '') return param;
  // A body that names the field so: `{ message, field: 'amount' }`.
  const field = readProperty(node, 'field');
  return typeof field === 'string' && field.length <= 100 && fieldName.test(field)
    ? field
    : undefined;
}
