import type { FailureEvidence } from '../failure-evidence.js';
import { readClassName, readProperty, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';

const unavailable = transient('SERVICE_UNAVAILABLE');
const invalid = verdict('VALIDATION', 'INVALID_INPUT');

// The first word of a Redis error reply is its code. The server rejected the command
// before running it, so none of these is ambiguous.
const byPrefix: Readonly<Record<string, Verdict>> = {
  NOAUTH: verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
  WRONGPASS: verdict('AUTHORIZATION', 'NOT_AUTHORIZED'),
  NOPERM: verdict('AUTHORIZATION', 'FORBIDDEN'),
  BUSY: unavailable, // a script is running
  LOADING: unavailable, // the dataset is loading
  READONLY: unavailable, // a replica after a failover: the client reconnects to the primary
  MASTERDOWN: unavailable,
  CLUSTERDOWN: unavailable,
  TRYAGAIN: unavailable,
  NOREPLICAS: unavailable,
  MISCONF: unavailable,
  OOM: unavailable,
  MOVED: transient('REDIRECTED'),
  ASK: transient('REDIRECTED'),
  WRONGTYPE: invalid,
  EXECABORT: invalid,
  CROSSSLOT: invalid,
  BUSYKEY: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  BUSYGROUP: verdict('STALE_STATE', 'ALREADY_EXISTS'),
  NOGROUP: verdict('PERMANENT', 'NOT_FOUND'),
  NOSCRIPT: verdict('PERMANENT', 'NOT_FOUND'),
};

function classifyErr(message: string): Verdict {
  if (/max(?:imum)? number of clients/i.test(message)) return unavailable;
  if (/invalid password|invalid username/i.test(message)) return byPrefix.NOAUTH!;
  if (/unknown command/i.test(message)) return verdict('PERMANENT', 'NOT_SUPPORTED');
  return invalid;
}

// node-redis leaves `name` at "Error": its kinds show in the class name and the text.
const byClientError: ReadonlyArray<readonly [string, string, Verdict]> = [
  [
    'WatchError',
    'One (or more) of the watched keys has been changed',
    verdict('STALE_STATE', 'CONFLICT'),
  ],
  ['ClientClosedError', 'The client is closed', transient('CONNECTION_CLOSED')],
  ['ClientOfflineError', 'The client is offline', transient('CONNECTION_REFUSED')],
  [
    'SocketClosedUnexpectedlyError',
    'Socket closed unexpectedly',
    transient('CONNECTION_RESET', true),
  ],
];

const replyClasses = new Set(['ReplyError', 'ErrorReply', 'SimpleError', 'BlobError']);

function isReply(node: object): boolean {
  if (
    replyClasses.has(readString(node, 'name') ?? '') ||
    replyClasses.has(readClassName(node) ?? '')
  ) {
    return true;
  }
  const command = readProperty(node, 'command'); // ioredis: { name, args }
  return (
    typeof readString(command, 'name') === 'string' && Array.isArray(readProperty(command, 'args'))
  );
}

function classifyNode(node: object, bare: boolean): Verdict | undefined {
  const message = readString(node, 'message') ?? '';
  const className = readClassName(node);
  for (const [name, text, result] of byClientError) {
    if (className === name || message === text) return result;
  }
  const prefix = /^([A-Z]{2,12})(?: |$)/.exec(message)?.[1];
  if (prefix === undefined) return undefined;
  const reply = isReply(node);
  if (prefix === 'ERR') return reply ? classifyErr(message) : undefined;
  // A bare message counts only where no HTTP status says someone else answered.
  return (reply || bare) && Object.hasOwn(byPrefix, prefix) ? byPrefix[prefix] : undefined;
}

/** Redis error replies from ioredis and node-redis (WRONGPASS, NOAUTH, BUSY, READONLY, ...). */
export function recogniseRedisReply(evidence: FailureEvidence): Verdict | undefined {
  const bare = evidence.facts.statuses.length === 0;
  for (const { value, payload } of evidence.nodes) {
    if (payload) continue;
    const result = classifyNode(value, bare);
    if (result) return result;
  }
  return undefined;
}
