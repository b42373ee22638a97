import { describe, expect, it } from 'vitest';
import { createHarness, httpFailure } from '../../../test-support/runtime-harness.js';

const invalid = () => {
  throw Object.assign(new Error('Unprocessable: field "due_date" is required'), { status: 422 });
};

describe('repairs per failure fingerprint', () => {
  it('repairs twice, then aborts the same failure as poison, across call ids', async () => {
    const h = createHarness();
    const input = { doc: 'invoice-7' };
    const first = await h.run('extract', input, invalid, 'call_a');
    const second = await h.run('extract', input, invalid, 'call_b');
    const third = await h.run('extract', input, invalid, 'call_c');
    expect([first, second, third].map((r) => !r.ok && r.contract.recommended_recovery)).toEqual([
      'REPAIR',
      'REPAIR',
      'ABORT',
    ]);
    expect(!third.ok && third.contract.code).toBe('POISON');
    expect(h.runtime.isStopped()).toBe(true);
    expect(h.runtime.takeGuidance()).toMatch(/repair budget/);
  });

  it('a poison step stays poison after a restart on the same ledger', async () => {
    const h = createHarness();
    await h.run('extract', { doc: 1 }, invalid);
    await h.run('extract', { doc: 1 }, invalid);
    const restarted = createHarness({}, { ledger: h.ledger, clock: h.clock });
    const result = await restarted.run('extract', { doc: 1 }, invalid);
    expect(result).toMatchObject({ ok: false, contract: { code: 'POISON' } });
  });

  it('SDK-reported invalid input counts toward the same budget', async () => {
    const h = createHarness({ repairBudget: 1 });
    const error = Object.assign(new Error('Invalid input for tool extract'), {
      name: 'AI_InvalidToolInputError',
      toolName: 'extract',
    });
    const first = await h.runtime.recordFailure({
      toolName: 'extract',
      toolCallId: 'a',
      input: '{"x":',
      error,
    });
    const second = await h.runtime.recordFailure({
      toolName: 'extract',
      toolCallId: 'b',
      input: '{"x":',
      error,
    });
    expect(first.contract).toMatchObject({
      failure_class: 'VALIDATION',
      recommended_recovery: 'REPAIR',
    });
    expect(second.contract).toMatchObject({ recommended_recovery: 'ABORT', code: 'POISON' });
    expect(h.runtime.isStopped()).toBe(true);
  });
});

describe('authorization: denied stays denied', () => {
  const policies = {
    github_api: { resource: (i: { repo: string }) => `https://github.com/${i.repo}` },
    shell: { resource: (i: { target: string }) => i.target },
    notes: {},
  };

  it('a 403 blocks the run; no later call runs, through any tool', async () => {
    const h = createHarness({ policies });
    const denied = await h.run('github_api', { repo: 'acme/secret' }, () => {
      throw httpFailure(403, 'Resource not accessible by integration');
    });
    expect(denied).toMatchObject({
      ok: false,
      contract: {
        status: 'BLOCKED',
        failure_class: 'AUTHORIZATION',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        next_possible_action: 'request authorized operator',
      },
    });
    let shellRan = false;
    const bypass = await h.run(
      'shell',
      { target: 'https://github.com/acme/secret/contents/README.md' },
      () => {
        shellRan = true;
      },
    );
    expect(shellRan).toBe(false);
    expect(bypass).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
    expect(h.runtime.outcome()).toMatchObject({
      status: 'BLOCKED',
      reason: 'AUTHORIZATION_DENIED',
      next_possible_action: 'request authorized operator',
    });
    expect(h.runtime.unusableTools(['github_api', 'shell'])).toEqual(['github_api', 'shell']);
  });

  it("with onDenial 'continue', only calls that touch a denied resource (or anything unknown) are blocked", async () => {
    const h = createHarness({ policies, onDenial: 'continue' });
    await h.run('github_api', { repo: 'acme/secret' }, () => {
      throw httpFailure(403);
    });
    const ran: string[] = [];
    const other = await h.run('github_api', { repo: 'acme/public' }, () => ran.push('public'));
    const below = await h.run('shell', { target: 'https://github.com/acme/secret/issues/1' }, () =>
      ran.push('secret'),
    );
    const unknown = await h.run('notes', { text: 'x' }, () => ran.push('notes'));
    expect(ran).toEqual(['public']);
    expect(other.ok).toBe(true);
    expect(below).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
    expect(unknown).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
    expect(h.runtime.isStopped()).toBe(false);
    expect(h.runtime.unusableTools(['github_api', 'notes'])).toEqual(['notes']);
  });

  it('a denial holds for another worker of the same run sharing the ledger', async () => {
    const worker1 = createHarness({ policies, onDenial: 'continue' });
    await worker1.run('github_api', { repo: 'acme/secret' }, () => {
      throw httpFailure(403);
    });
    const worker2 = createHarness(
      { policies, onDenial: 'continue' },
      { ledger: worker1.ledger, clock: worker1.clock },
    );
    let ran = false;
    const result = await worker2.run('shell', { target: 'https://github.com/acme/secret' }, () => {
      ran = true;
    });
    expect(ran).toBe(false);
    expect(result.ok).toBe(false);
  });

  it('static scope: a call outside the scope never runs', async () => {
    const h = createHarness({
      policies,
      scope: { deny: ['https://github.com/acme/secret/**', 'https://github.com/acme/secret'] },
    });
    let ran = false;
    const result = await h.run('github_api', { repo: 'acme/secret' }, () => {
      ran = true;
    });
    expect(ran).toBe(false);
    expect(result).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
  });
});

describe('options', () => {
  it('fail at construction with the field named', () => {
    expect(() => createHarness({ runId: '' })).toThrow(/runId/);
    expect(() =>
      createHarness({ policies: { refund: { sideEffects: 'yes' as unknown as boolean } } }),
    ).toThrow(/policies\.refund\.sideEffects/);
    expect(() =>
      createHarness({ policies: { refund: { sideEffects: false, idempotent: true } } }),
    ).toThrow(/policies\.refund\.idempotent/);
    expect(() => createHarness({ retry: { maxAttempts: 0 } })).toThrow(/retry\.maxAttempts/);
    expect(() => createHarness({ onDenial: 'maybe' as 'stop' })).toThrow(/onDenial/);
  });
});
