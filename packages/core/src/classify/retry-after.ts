/** Response headers as a plain object (lower-case names) or anything with `get(name)`. */
export type HeaderSource =
  | Readonly<Record<string, string | undefined>>
  | { get(name: string): string | null | undefined };

function readHeader(headers: HeaderSource, name: string): string | undefined {
  try {
    const value =
      typeof headers.get === 'function'
        ? (headers as { get(name: string): unknown }).get(name)
        : (headers as Record<string, unknown>)[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  } catch {
    return undefined;
  }
}

const decimal = /^\d+(?:\.\d+)?$/;
// OpenAI's reset durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`.
const durationPart = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
const durationShape = /^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/;
const unitMs: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

function parseDurationMs(value: string): number | undefined {
  if (decimal.test(value)) return Number(value) * 1000;
  if (!durationShape.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(durationPart)) {
    total += Number(amount) * (unitMs[unit ?? ''] ?? 0);
  }
  return total;
}

function parseRetryAfter(value: string, now: number): number | undefined {
  if (decimal.test(value)) return Number(value) * 1000;
  // An HTTP date names its month; V8 would also read "-5" or "12" as a year.
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at - now;
}

// Epoch seconds are far larger than any sane delta; below this a reset is a delta.
const epochThresholdSeconds = 1_000_000_000;

function parseReset(value: string, now: number): number | undefined {
  if (!decimal.test(value)) return undefined;
  const seconds = Number(value);
  return seconds >= epochThresholdSeconds ? seconds * 1000 - now : seconds * 1000;
}

function openAiResetMs(headers: HeaderSource): number | undefined {
  const requests = readHeader(headers, 'x-ratelimit-reset-requests');
  const tokens = readHeader(headers, 'x-ratelimit-reset-tokens');
  const requestsMs = requests === undefined ? undefined : parseDurationMs(requests);
  const tokensMs = tokens === undefined ? undefined : parseDurationMs(tokens);
  // Wait for the limit that is actually exhausted; if unknown, for the later reset.
  if (readHeader(headers, 'x-ratelimit-remaining-requests') === '0' && requestsMs !== undefined) {
    return requestsMs;
  }
  if (readHeader(headers, 'x-ratelimit-remaining-tokens') === '0' && tokensMs !== undefined) {
    return tokensMs;
  }
  if (requestsMs === undefined) return tokensMs;
  return tokensMs === undefined ? requestsMs : Math.max(requestsMs, tokensMs);
}

// Anthropic's limits: `anthropic-ratelimit-<limit>-remaining` and `-reset` (RFC 3339).
const anthropicLimits = ['requests', 'tokens', 'input-tokens', 'output-tokens'];

function anthropicResetMs(headers: HeaderSource, now: number): number | undefined {
  for (const limit of anthropicLimits) {
    if (readHeader(headers, `anthropic-ratelimit-${limit}-remaining`) !== '0') continue;
    const reset = readHeader(headers, `anthropic-ratelimit-${limit}-reset`);
    const at =
      reset !== undefined && /^\d{4}-\d\d-\d\dT/.test(reset) ? Date.parse(reset) : Number.NaN;
    if (!Number.isNaN(at)) return at - now;
  }
  return undefined;
}

/**
 * How long the server asked the client to wait, in milliseconds, from `retry-after-ms`,
 * `retry-after` (seconds or an HTTP date), OpenAI's `x-ratelimit-reset-*` durations,
 * Anthropic's exhausted `anthropic-ratelimit-*-reset` times,
 * `ratelimit-reset` and `x-ratelimit-reset` (delta or epoch seconds). Negative waits are 0.
 */
export function parseRetryAfterMs(headers: HeaderSource, now: number): number | undefined {
  const candidates: Array<() => number | undefined> = [
    () => {
      const value = readHeader(headers, 'retry-after-ms');
      return value !== undefined && decimal.test(value) ? Number(value) : undefined;
    },
    () => {
      const value = readHeader(headers, 'retry-after');
      return value === undefined ? undefined : parseRetryAfter(value, now);
    },
    () => openAiResetMs(headers),
    () => anthropicResetMs(headers, now),
    () => {
      const value = readHeader(headers, 'ratelimit-reset');
      return value !== undefined && decimal.test(value) ? Number(value) * 1000 : undefined;
    },
    () => {
      const value = readHeader(headers, 'x-ratelimit-reset');
      return value === undefined ? undefined : parseReset(value, now);
    },
  ];
  for (const candidate of candidates) {
    const ms = candidate();
    if (ms !== undefined && Number.isFinite(ms)) return Math.max(0, Math.round(ms));
  }
  return undefined;
}
