const maxParsedLength = 8192;

/** A JSON object or array in `text` (a response body as a string), or undefined. */
export function parseJsonBody(text: string): unknown {
  if (text.length > maxParsedLength || !/^\s*[{[]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const sentenceKeys = ['message', 'error', 'detail', 'title', 'error_description'];
// Said elsewhere in the contract: the invalid field and the status.
const statedKeys = new Set(['field', 'param', 'status', 'statusCode']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a JSON error body adds to what was said already: the body without the sentences
 * `said` holds (`message`, `error`, `detail`, `title`, `error.message`, …) and without the
 * field and status, as JSON; '' when nothing is left; the text itself when it is no body.
 */
function bodyRemainder(text: string, said: (key: string) => boolean): string {
  const body = parseJsonBody(text);
  if (!isRecord(body)) return text;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (statedKeys.has(key)) continue;
    if (sentenceKeys.includes(key) && typeof value === 'string' && said(comparable(value)))
      continue;
    if (key === 'error' && isRecord(value)) {
      const inner = bodyRemainder(JSON.stringify(value), said);
      if (inner !== '') rest[key] = JSON.parse(inner) as unknown;
      continue;
    }
    rest[key] = value;
  }
  return Object.keys(rest).length === 0 ? '' : JSON.stringify(rest);
}

/** Compared without case, surrounding space, repeated space or a closing full stop. */
function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '');
}

/**
 * The messages of a failure, each said once, outermost first: a message that another one
 * already contains is dropped (a wrapper's "HTTP 422: amount must be at most 120" holds its
 * cause's "amount must be at most 120"), a longer one replaces the shorter one it contains,
 * and a JSON body adds only what was not said already (its other keys, as JSON).
 */
export function distinctMessages(messages: readonly string[]): string[] {
  const kept: { text: string; key: string }[] = [];
  const said = (key: string) => kept.some((k) => k.key.includes(key));
  for (const message of messages) {
    const text = bodyRemainder(message, said);
    const key = comparable(text);
    if (key === '' || said(key)) continue;
    const shorter = kept.findIndex((k) => key.includes(k.key));
    if (shorter === -1) kept.push({ text, key });
    else {
      kept[shorter] = { text, key };
      // The longer text may also hold later kept ones.
      for (let i = kept.length - 1; i > shorter; i--) {
        if (key.includes(kept[i]!.key)) kept.splice(i, 1);
      }
    }
  }
  return kept.map((k) => k.text);
}
