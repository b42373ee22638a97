import { parseJsonBody } from './compose-message.js';
import { readIssueField } from './issue-field.js';
import { truncateText } from './redact.js';
import { readHeaders, readProperty, readString } from './safe-read.js';

/** What can be read from a thrown value and its causes, outermost first. Plain data. */
export interface FailureFacts {
  /**
   * HTTP statuses (`status`, `statusCode`, `response.status`, `response.statusCode`,
   * `$metadata.httpStatusCode`).
   */
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

const maxTextLength = 8192;

export function emptyFacts(): FailureFacts {
  return {
    statuses: [],
    codes: [],
    sqlStates: [],
    names: [],
    syscalls: [],
    headers: {},
    messages: [],
  };
}

function pushUnique<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

/** A status in 100..599, from a number or a three-digit string. */
export function readStatus(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status < 600
    ? status
    : undefined;
}

function isDatabaseError(node: object, code: string): boolean {
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return readProperty(node, 'name') === 'error' || readString(node, 'severity') !== undefined;
}

/** Adds a message or body text, bounded, once. */
export function collectText(text: string, facts: FailureFacts): void {
  if (text !== '') pushUnique(facts.messages, truncateText(text, maxTextLength));
}

/** Adds what one node of the chain says to `facts`. Every read is guarded. */
export function collectNode(node: object, facts: FailureFacts): void {
  const response = readProperty(node, 'response');
  const metadata = readProperty(node, '$metadata');
  for (const candidate of [
    readProperty(node, 'status'),
    readProperty(node, 'statusCode'),
    readProperty(response, 'status'),
    // got keeps the status of its HTTPError on `response.statusCode`.
    readProperty(response, 'statusCode'),
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
    if (text !== undefined) collectText(text, facts);
  }
  facts.field ??= readIssueField(node);
  // A body kept as JSON text (`responseBody`) may name the field: `{"field":"amount"}`.
  for (const key of ['responseBody', 'body']) {
    const text = readString(node, key);
    if (facts.field !== undefined || text === undefined) continue;
    const body = parseJsonBody(text);
    facts.field = readIssueField(body) ?? readIssueField(readProperty(body, 'error'));
  }
}
