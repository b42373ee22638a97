import { classifyFailure } from '@recourse/core';
import got from 'got';
import ky from 'ky';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture();
});
afterAll(() => fixture.close());

const statuses = [
  [503, 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
  [500, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  [429, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
  [404, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
  [409, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
  [422, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
  [403, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
] as const;

describe('got', () => {
  const post = (url: string, options = {}) =>
    got.post(url, { body: 'x', retry: { limit: 0 }, ...options });

  it.each(statuses)(
    'HTTPError %i (status on response.statusCode)',
    async (status, noHint, withHint, code) => {
      fixture.reply({ status, headers: { 'retry-after': '2' } });
      const error = await rejection(() => post(`${fixture.url}/orders`));
      expect(error).toMatchObject({ name: 'HTTPError', response: { statusCode: status } });
      expect(classesOf(error)).toEqual([noHint, withHint, code]);
      if (noHint === 'TRANSIENT') expect(classifyFailure(error).retryAfterMs).toBe(2000);
    },
  );

  it('a refused connection is TRANSIENT', async () => {
    const error = await rejection(async () =>
      post(`http://127.0.0.1:${await closedPort()}/orders`),
    );
    expect(error).toMatchObject({ name: 'RequestError', code: 'ECONNREFUSED' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('a timeout during DNS lookup never sent the request; one awaiting the response may have', async () => {
    const neverResolves = () => {}; // a lookup that never calls back
    const lookup = await rejection(() =>
      post('http://orders.test/orders', { dnsLookup: neverResolves, timeout: { lookup: 30 } }),
    );
    expect(lookup).toMatchObject({ name: 'TimeoutError', event: 'lookup' });
    expect(classesOf(lookup)).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
    fixture.reply({ hang: true });
    const response = await rejection(() =>
      post(`${fixture.url}/orders`, { timeout: { response: 30 } }),
    );
    expect(response).toMatchObject({ name: 'TimeoutError', event: 'response' });
    expect(classesOf(response)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });

  it('a connection dropped after the request was sent is a reset', async () => {
    fixture.reply({ drop: true });
    const error = await rejection(() => post(`${fixture.url}/orders`));
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET']);
  });
});

describe('ky', () => {
  const post = (url: string, options = {}) => ky.post(url, { body: 'x', retry: 0, ...options });

  it.each(statuses)('HTTPError %i', async (status, noHint, withHint, code) => {
    fixture.reply({ status, headers: { 'retry-after': '2' } });
    const error = await rejection(() => post(`${fixture.url}/orders`));
    expect(error).toMatchObject({ name: 'HTTPError', response: { status } });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
    if (noHint === 'TRANSIENT') expect(classifyFailure(error).retryAfterMs).toBe(2000);
  });

  it('a refused connection is TRANSIENT; its own timeout may have reached the server', async () => {
    const refused = await rejection(async () =>
      post(`http://127.0.0.1:${await closedPort()}/orders`),
    );
    expect(classesOf(refused)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
    fixture.reply({ hang: true });
    const timedOut = await rejection(() => post(`${fixture.url}/orders`, { timeout: 30 }));
    expect(timedOut).toMatchObject({ name: 'TimeoutError' });
    expect(classesOf(timedOut)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });
});
