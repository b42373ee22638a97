import { describe, expect, it } from 'vitest';
import { classesOf } from './classes-of.test-harness.js';

function gotTimeout(event: string) {
  return Object.assign(new Error(`Timeout awaiting '${event}' for 50ms`), {
    name: 'TimeoutError',
    code: 'ETIMEDOUT',
    event,
  });
}

describe('timeouts that say where they happened (shape)', () => {
  it.each([
    ['lookup', 'TRANSIENT'],
    ['connect', 'TRANSIENT'],
    ['secureConnect', 'TRANSIENT'],
    ['send', 'UNKNOWN_OUTCOME'],
    ['response', 'UNKNOWN_OUTCOME'],
    ['request', 'UNKNOWN_OUTCOME'],
  ])("got's TimeoutError during %s", (event, withHint) => {
    expect(classesOf(gotTimeout(event))).toEqual(['TRANSIENT', withHint, 'TIMEOUT']);
  });

  it("the AWS SDK's connection timeout never reached the server", () => {
    const error = Object.assign(
      new Error(
        '@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 1000 ms.',
      ),
      { name: 'TimeoutError', $metadata: { attempts: 1 } },
    );
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
    const idle = Object.assign(
      new Error('the request socket timed out after 1000 ms of inactivity'),
      {
        name: 'TimeoutError',
      },
    );
    expect(classesOf(idle)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });
});
