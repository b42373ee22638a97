import { readIssueField } from './issue-field.js';
import { truncateText } from './redact.js';
import { readHeaders, readProperty, readString } from './safe-read.js';

/** What can be read from a thrown value and its causes, outermost first. Plain data. */
export interface FailureFacts {
  /** HTTP statuses (`status`, `statusCode`, `response.status`, `$metadata.httpStatusCode`). */
  statuses: number[];
  /** String codes from `code`, `type` and string `errno` (ECONNREFUSED, rate_limit_exceeded). */
  codes: string[];
  /** PostgreSQL SQLSTATEs (the 5-character `code` of pg's DatabaseError). */
  sqlStates: string[];
  /** Error and DOMException names (TimeoutError, AI_APICallError, ZodError). */
  names: string[];
  /** Node's `syscall` on errno errors (`connect`, `getaddrinfo`, `read`). */
  syscalls: string[];
  /** Response headers, lower-case names; the outermost value of a name wins. */
  headers: Record<string, string>;
  /** Messages and response bodies, each bounded. */
  messages: string[];
  /** The offending input field, from validation issues (zod `path`). */
  field?: string | undefined;
}

const maxDepth = 8;
const maxNodes = 64;
const maxChildrenPerList = 16;
const maxTextLength = 8192;

function pushUnique<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

function readStatus(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status < 600
    ? status
    : undefined;
}

function readList(value: unknown): unknown[] {
  try {
    if (!Array.isArray(value)) return [];
    return value.slice(0, maxChildrenPerList);
  } catch {
    return [];
  }
}

function isDatabaseError(node: object, code: string): boolean {
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return readProperty(node, 'name') === 'error' || readString(node, 'severity') !== undefined;
}

function collectNode(node: object, facts: FailureFacts): void {
  const response = readProperty(node, 'response');
  const metadata = readProperty(node, '$metadata');
  for (const candidate of [
    readProperty(node, 'status'),
    readProperty(node, 'statusCode'),
    readProperty(response, 'status'),
    readProperty(metadata, 'httpStatusCode'),
  ]) {
    const status = readStatus(candidate);
    if (status !== undefined) pushUnique(facts.statuses, status);
  }
  const code = readString(node, 'code');
  if (code !== undefined) {
    if (isDatabaseError(node, code)) pushUnique(facts.sqlStates, code);
    else pushUnique(facts.codes, code);
  }
  for (const key of ['type', 'errno']) {
    const value = readString(node, key);
    if (value !== undefined && value.length <= 100) pushUnique(facts.codes, value);
  }
  const name = readString(node, 'name');
  if (name !== undefined && name.length <= 100) pushUnique(facts.names, name);
  const syscall = readString(node, 'syscall');
  if (syscall !== undefined) pushUnique(facts.syscalls, syscall);
  for (const source of [
    readProperty(node, 'headers'),
    readProperty(node, 'responseHeaders'),
    readProperty(response, 'headers'),
  ]) {
    for (const [key, value] of readHeaders(source)) {
      if (!(key in facts.headers)) facts.headers[key] = value;
    }
  }
  for (const key of ['message', 'responseBody', 'body']) {
    const text = readString(node, key);
    if (text !== undefined && text !== '') {
      pushUnique(facts.messages, truncateText(text, maxTextLength));
    }
  }
  facts.field ??= readIssueField(node);
}

// Where wrapped errors hide: standard `cause`, AggregateError's and the AI SDK RetryError's
// `errors` and `lastError`, and error bodies (`error`, `data`) that carry codes.
function childrenOf(node: object): unknown[] {
  const children: unknown[] = [readProperty(node, 'lastError'), readProperty(node, 'cause')];
  children.push(...readList(readProperty(node, 'errors')));
  for (const key of ['error', 'data', 'body']) {
    const value = readProperty(node, key);
    if (typeof value === 'object' && value !== null) children.push(value);
  }
  return children;
}

/**
 * Reads everything classification needs from a thrown value and its cause chain.
 * Duck-typed and defensive: hostile getters, proxies and cycles never make it throw.
 */
export function readFailureFacts(error: unknown): FailureFacts {
  const facts: FailureFacts = {
    statuses: [],
    codes: [],
    sqlStates: [],
    names: [],
    syscalls: [],
    headers: {},
    messages: [],
  };
  const seen = new Set<object>();
  let queue: unknown[] = [error];
  for (let depth = 0; depth <= maxDepth && queue.length > 0; depth++) {
    const next: unknown[] = [];
    for (const value of queue) {
      if (typeof value === 'string') {
        if (value !== '') pushUnique(facts.messages, truncateText(value, maxTextLength));
        continue;
      }
      if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue;
      if (seen.has(value) || seen.size >= maxNodes) continue;
      seen.add(value);
      try {
        collectNode(value, facts);
        next.push(...childrenOf(value));
      } catch {
        // A node that defeats even the guarded reads contributes nothing.
      }
    }
    queue = next;
  }
  return facts;
}
