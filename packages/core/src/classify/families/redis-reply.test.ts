import { describe, expect, it } from 'vitest';
import { classesOf } from './classes-of.test-harness.js';

function replyError(message: string) {
  return Object.assign(new Error(message), {
    name: 'ReplyError',
    command: { name: 'set', args: ['k'] },
  });
}

describe('Redis error replies (shape)', () => {
  it.each([
    ['NOAUTH Authentication required.', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [
      'WRONGPASS invalid username-password pair or user is disabled.',
      'AUTHORIZATION',
      'AUTHORIZATION',
      'NOT_AUTHORIZED',
    ],
    [
      "NOPERM User u has no permissions to run the 'set' command",
      'AUTHORIZATION',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    ['BUSY Redis is busy running a script.', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [
      'LOADING Redis is loading the dataset in memory',
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ],
    [
      "READONLY You can't write against a read only replica.",
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ],
    ['CLUSTERDOWN The cluster is down', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    ['MOVED 3999 127.0.0.1:6381', 'TRANSIENT', 'TRANSIENT', 'REDIRECTED'],
    [
      'OOM command not allowed when used memory > maxmemory.',
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ],
    [
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
    [
      'EXECABORT Transaction discarded because of previous errors.',
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
    [
      'BUSYGROUP Consumer Group name already exists',
      'STALE_STATE',
      'STALE_STATE',
      'ALREADY_EXISTS',
    ],
    ['NOSCRIPT No matching script. Please use EVAL.', 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    ['ERR syntax error', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [
      "ERR unknown command 'JSON.SET', with args beginning with:",
      'PERMANENT',
      'PERMANENT',
      'NOT_SUPPORTED',
    ],
    ['ERR max number of clients reached', 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    ['ERR invalid password', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
  ])('%s', (message, noHint, withHint, code) => {
    expect(classesOf(replyError(message))).toEqual([noHint, withHint, code]);
  });

  it("node-redis's SimpleError (name 'Error') is a reply by its class", () => {
    class SimpleError extends Error {}
    expect(classesOf(new SimpleError('ERR wrong number of arguments'))[0]).toBe('VALIDATION');
  });

  it('a bare reply text counts, except ERR, and not under an HTTP status', () => {
    expect(classesOf(new Error('NOAUTH Authentication required.'))[0]).toBe('AUTHORIZATION');
    expect(classesOf(new Error('ERR something'))[2]).toBe('UNKNOWN');
    const leaked = Object.assign(new Error('NOAUTH Authentication required.'), { status: 500 });
    expect(classesOf(leaked)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR']);
  });

  it('node-redis client errors by class or text: WatchError is stale state', () => {
    class WatchError extends Error {}
    expect(classesOf(new WatchError('One (or more) of the watched keys has been changed'))[0]).toBe(
      'STALE_STATE',
    );
    expect(classesOf(new Error('The client is offline'))).toEqual([
      'TRANSIENT',
      'TRANSIENT',
      'CONNECTION_REFUSED',
    ]);
    expect(classesOf(new Error('Socket closed unexpectedly'))).toEqual([
      'TRANSIENT',
      'UNKNOWN_OUTCOME',
      'CONNECTION_RESET',
    ]);
  });
});
