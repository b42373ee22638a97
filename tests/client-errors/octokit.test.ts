import { Octokit } from '@octokit/rest';
import { createClassifier } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, type Fixture, rejection, startFixture } from './support.js';

let fixture: Fixture;
let octokit: Octokit;
const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

beforeAll(async () => {
  fixture = await startFixture();
  octokit = new Octokit({ baseUrl: fixture.url, log: silentLog });
});
afterAll(() => fixture.close());

/** The RequestError the real client throws for this answer to a write (create an issue). */
async function octokitError(status: number, body: object, headers: Record<string, string> = {}) {
  fixture.reply({ status, headers, body });
  return rejection(() => octokit.issues.create({ owner: 'acme', repo: 'app', title: 'x' }));
}

describe('Octokit RequestError', () => {
  it('a refused connection reported as status 500 is TRANSIENT: the write never left', async () => {
    const client = new Octokit({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      log: silentLog,
    });
    const error = await rejection(() =>
      client.issues.create({ owner: 'acme', repo: 'app', title: 'x' }),
    );
    expect(error).toMatchObject({ name: 'HttpError', status: 500 });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('a secondary rate limit (403 with retry-after) waits as told', async () => {
    const error = await octokitError(
      403,
      {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      },
      { 'retry-after': '30' },
    );
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'RATE_LIMITED']);
    expect(createClassifier()(error).retryAfterMs).toBe(30_000);
  });

  it('a primary rate limit (403, x-ratelimit-remaining 0) waits until x-ratelimit-reset', async () => {
    const clock = createFakeClock(Date.parse('2026-03-01T12:00:00Z'));
    const reset = String(clock.now() / 1000 + 42);
    const error = await octokitError(
      403,
      { message: 'API rate limit exceeded for installation ID 1.' },
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    );
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'RATE_LIMITED']);
    expect(createClassifier({ clock })(error, { sideEffects: true }).retryAfterMs).toBe(42_000);
  });

  it('the older abuse-detection wording is a rate limit too', async () => {
    const error = await octokitError(403, {
      message:
        'You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.',
    });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'RATE_LIMITED']);
  });

  it.each([
    [429, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [403, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [401, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [404, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [409, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [422, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [500, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [502, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [503, 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
  ])('%i', async (status, noHint, withHint, code) => {
    const error = await octokitError(status, { message: 'GitHub says no' });
    expect(error).toMatchObject({ name: 'HttpError', status });
    expect(classesOf(error)).toEqual([noHint, withHint, code]);
  });
});
