import { describe, expect, it } from 'vitest';
import { createHarness, httpFailure } from '../../../test-support/runtime-harness.js';

// A run that says how long it has (`deadlineMs`) spends that time recovering. The fake
// clock starts at 1,000,000 and moves only by the runtime's own sleeps.
describe('a run with deadlineMs', () => {
  it('waits out a 40 s Retry-After that fits in the time it has (without one: not now)', async () => {
    const limited = () => httpFailure(429, 'Too Many Requests', { 'retry-after': '40' });
    const h = createHarness({ defaultPolicy: { sideEffects: false }, deadlineMs: 120_000 });
    let calls = 0;
    const result = await h.run('search', { q: 'x' }, () => {
      if (++calls === 1) throw limited();
      return 'found';
    });
    expect(result).toMatchObject({ ok: true, value: 'found' });
    expect(h.clock.sleeps).toEqual([40_000]);

    const without = createHarness({ defaultPolicy: { sideEffects: false } });
    const refused = await without.run('search', { q: 'x' }, () => {
      throw limited();
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.contract.code).toBe('RETRY_AFTER_TOO_LONG');
  });

  it('retries a 20 s burst past five attempts, then stops when the next wait no longer fits', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false }, deadlineMs: 120_000 });
    const start = h.clock.now();
    let calls = 0;
    const result = await h.run('geocode', { q: 'x' }, () => {
      calls++;
      if (h.clock.now() - start < 20_000) throw httpFailure(503);
      return { lat: 47.5 };
    });
    expect(result).toMatchObject({ ok: true });
    expect(calls).toBe(6); // five attempts inside the burst (the default maxAttempts), the sixth after it
    expect(h.clock.now() - start).toBeGreaterThanOrEqual(20_000);

    const dead = createHarness({ defaultPolicy: { sideEffects: false }, deadlineMs: 120_000 });
    let sent = 0;
    const ended = await dead.run('geocode', { q: 'x' }, () => {
      sent++;
      throw httpFailure(503);
    });
    expect(ended.ok).toBe(false);
    if (!ended.ok) expect(ended.contract.code).toBe('TIME_BUDGET_EXHAUSTED');
    // Every wait was inside the run's time; the backoff grows, so few requests go out.
    expect(dead.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(120_000);
    expect(sent).toBeLessThanOrEqual(8);
  });

  it('rejects a deadline that is not a duration, naming the field', () => {
    expect(() => createHarness({ deadlineMs: -1 })).toThrow(/deadlineMs/);
  });
});

describe('a write left in doubt with nothing to prove it', () => {
  const lost = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

  it('names the read tools of its dependency as the safe way on', async () => {
    const h = createHarness({
      policies: {
        send_email: { sideEffects: true, dependency: 'mail' },
        list_sent_emails: { sideEffects: false, dependency: 'mail' },
        get_weather: { sideEffects: false },
      },
    });
    const result = await h.run('send_email', { to: 'a@example.com' }, () => {
      throw lost();
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.contract).toMatchObject({
      code: 'RECONCILE_BY_HAND',
      retry_same_action: false,
      next_possible_action: 'read the state with list_sent_emails, or ask the user',
    });
    expect(result.contract.guidance).toContain('read the current state with list_sent_emails');
    expect(result.contract.guidance).not.toContain('get_weather');
  });

  it('names the tools of its verifyWith, or says to ask the user when there are none', async () => {
    const named = createHarness({
      policies: { send_email: { sideEffects: true, verifyWith: ['search_outbox'] } },
    });
    const first = await named.run('send_email', { to: 'b' }, () => {
      throw lost();
    });
    if (!first.ok) expect(first.contract.next_possible_action).toContain('search_outbox');

    const none = createHarness({ policies: { send_email: { sideEffects: true } } });
    const second = await none.run('send_email', { to: 'c' }, () => {
      throw lost();
    });
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.contract.next_possible_action).toBe('ask the user whether it happened');
    expect(second.contract.guidance).toContain('Ask the user whether it happened');
  });

  it('rejects a verifyWith that is not a tool name or a list of them', () => {
    expect(() =>
      createHarness({ policies: { send_email: { sideEffects: true, verifyWith: [3] as never } } }),
    ).toThrow(/policies\.send_email\.verifyWith/);
  });
});
