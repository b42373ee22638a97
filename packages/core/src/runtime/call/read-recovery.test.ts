import { describe, expect, it } from 'vitest';
import { createHarness, httpFailure } from '../../../test-support/runtime-harness.js';
import { callContext } from '../call-context.js';

describe('a read tool', () => {
  it('retries transient faults inside the call with jittered backoff, the caller sees only the result', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    let calls = 0;
    const result = await h.run('geocode', { q: 'Budapest' }, () => {
      calls++;
      if (calls < 3) throw httpFailure(503, 'Service Unavailable');
      return { lat: 47.5 };
    });
    expect(result).toEqual({
      ok: true,
      value: { lat: 47.5 },
      deduplicated: false,
      degraded: false,
    });
    expect(calls).toBe(3);
    expect(h.clock.sleeps).toEqual([150, 600]); // equal jitter at 0.5 of 200 ms and 800 ms
    expect(h.events.filter((e) => e.type === 'retry.scheduled')).toHaveLength(2);
    expect(h.runtime.outcome()).toMatchObject({
      status: 'COMPLETED',
      completed_steps: ['geocode'],
    });
  });

  it('honours Retry-After as a floor for the delay', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    let calls = 0;
    await h.run('search', { q: 'x' }, () => {
      if (++calls === 1) throw httpFailure(429, 'Too Many Requests', { 'retry-after': '2' });
      return 'ok';
    });
    expect(h.clock.sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it('aborts when the transport budget is spent: a dead endpoint is not a prompt problem', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    let calls = 0;
    const result = await h.run('geocode', { q: 'x' }, () => {
      calls++;
      throw httpFailure(503);
    });
    expect(calls).toBe(5); // the runtime's default maxAttempts
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.contract).toMatchObject({
      failure_class: 'TRANSIENT',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'ATTEMPTS_EXHAUSTED',
    });
    expect(h.runtime.isStopped()).toBe(true);
    expect(h.runtime.outcome()).toMatchObject({ status: 'FAILED', reason: 'ATTEMPTS_EXHAUSTED' });
  });

  it('uses a declared fallback explicitly, and the outcome says the result is partial', async () => {
    const h = createHarness({
      policies: {
        telemetry: { fallback: () => ({ cached: true }), missingEvidence: 'deployment metrics' },
      },
    });
    const result = await h.run('telemetry', {}, () => {
      throw httpFailure(503);
    });
    expect(result).toMatchObject({ ok: true, value: { cached: true }, degraded: true });
    expect(h.runtime.outcome()).toMatchObject({
      status: 'PARTIAL_RESULT',
      missing_evidence: ['deployment metrics'],
      confidence: 'LOW',
    });
  });

  it('exposes the call context to the tool and to code it calls', async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    const seen: unknown[] = [];
    const nested = async () => callContext();
    await h.run(
      'lookup',
      { id: 7 },
      async () => {
        seen.push(await nested());
        return null;
      },
      'call_ctx',
    );
    expect(seen[0]).toMatchObject({
      runId: 'run-1842',
      toolName: 'lookup',
      toolCallId: 'call_ctx',
      attempt: 1,
    });
    expect(() => callContext()).toThrow(/outside a tool wrapped by recourse/);
  });

  it("rethrows the caller's abort untouched, even during a backoff sleep", async () => {
    const h = createHarness({ defaultPolicy: { sideEffects: false } });
    const controller = new AbortController();
    const reason = new DOMException('stopped by user', 'AbortError');
    const pending = h.runtime.execute({
      toolName: 'geocode',
      toolCallId: 'c1',
      input: {},
      signal: controller.signal,
      execute: () => {
        throw httpFailure(503);
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.clock.pending()).toBe(1);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('a throwing event listener changes nothing', async () => {
    const h = createHarness({
      defaultPolicy: { sideEffects: false },
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    await expect(h.run('x', {}, () => 1)).resolves.toMatchObject({ ok: true, value: 1 });
  });
});
