import type { FailureEvidence } from './failure-evidence.js';
import { readNumber, readProperty } from './safe-read.js';

// A protobuf Duration in JSON ("17s", "0.5s") or as an object ({ seconds, nanos }).
function durationMs(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const seconds = /^(\d{1,9}(?:\.\d{1,9})?)s$/.exec(value.trim())?.[1];
    return seconds === undefined ? undefined : Number(seconds) * 1000;
  }
  const seconds = readProperty(value, 'seconds');
  const nanos = readNumber(value, 'nanos') ?? 0;
  const whole =
    typeof seconds === 'string' && /^\d{1,12}$/.test(seconds) ? Number(seconds) : seconds;
  return typeof whole === 'number' && Number.isFinite(whole)
    ? whole * 1000 + nanos / 1e6
    : undefined;
}

function detailsDelayMs(node: object): number | undefined {
  for (const key of ['details', 'statusDetails']) {
    const list = readProperty(node, key);
    if (!Array.isArray(list)) continue;
    for (const item of list.slice(0, 16)) {
      const delay = durationMs(readProperty(item, 'retryDelay'));
      if (delay !== undefined) return delay;
    }
  }
  return undefined;
}

// gRPC server pushback (gRFC A6), from a grpc-js `Metadata` (`get` returns a list).
function pushbackMs(node: object): number | undefined {
  const metadata = readProperty(node, 'metadata');
  const get = readProperty(metadata, 'get');
  if (typeof get !== 'function') return undefined;
  try {
    const values: unknown = get.call(metadata, 'grpc-retry-pushback-ms');
    const first: unknown = Array.isArray(values) ? values[0] : values;
    return typeof first === 'string' && /^\d{1,9}$/.test(first) ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

function nodeDelayMs(node: object): number | undefined {
  const ms = readNumber(node, 'retryAfterMs');
  if (ms !== undefined) return ms;
  // `retryAfter` counts seconds, as the Retry-After header does (@slack/web-api).
  const seconds = readNumber(node, 'retryAfter');
  if (seconds !== undefined) return seconds * 1000;
  return durationMs(readProperty(node, 'retryDelay')) ?? detailsDelayMs(node) ?? pushbackMs(node);
}

const retryDelayText = /"retryDelay"\s*:\s*"(\d{1,9}(?:\.\d{1,9})?)s"/;

/**
 * How long the failure asks to wait, from the places clients keep it besides headers:
 * `retryAfterMs` / `retryAfter` fields, google.rpc RetryInfo (`retryDelay`, in a body
 * object or in JSON text), gRPC `grpc-retry-pushback-ms` metadata.
 */
export function readRetryHintMs(evidence: FailureEvidence): number | undefined {
  for (const { value } of evidence.nodes) {
    const delay = nodeDelayMs(value);
    if (delay !== undefined && Number.isFinite(delay)) return Math.max(0, Math.round(delay));
  }
  for (const message of evidence.facts.messages) {
    const seconds = retryDelayText.exec(message)?.[1];
    if (seconds !== undefined) return Math.round(Number(seconds) * 1000);
  }
  return undefined;
}
