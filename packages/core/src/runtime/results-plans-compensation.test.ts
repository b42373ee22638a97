import { describe, expect, it } from 'vitest';
import {
  createHarness,
  drive,
  httpFailure,
  timeoutAfterWrite,
} from '../../test-support/runtime-harness.js';
import { callContext, createConsoleTrace } from '../index.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { maxUndoableWrites } from './run/write-history.js';

describe('check: a returned value that is a failure', () => {
  const runTests = {
    sideEffects: false,
    check: (r: { status: string; failing?: string }) =>
      r.status === 'FAIL'
        ? { message: `test failed: ${r.failing}`, code: 'TEST_FAILED' }
        : undefined,
  };

  it('is classified, fingerprinted and decided like a thrown one; the same signature again is poison', async () => {
    const h = createHarness({ policies: { run_tests: runTests } });
    const failing = () => ({ status: 'FAIL', failing: 'checkout.spec.ts: expected 200' });
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await h.run('run_tests', { suite: 'checkout' }, failing));
    expect(
      results.map((r) => (r.ok ? 'ok' : `${r.contract.recommended_recovery}/${r.contract.code}`)),
    ).toEqual(['REPAIR/TEST_FAILED', 'REPAIR/TEST_FAILED', 'ABORT/POISON', 'ABORT/RUN_STOPPED']);
    expect(h.runtime.outcome()).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('a passing result goes through untouched; a throwing check counts as a failure', async () => {
    const h = createHarness({
      policies: {
        run_tests: runTests,
        flaky: {
          sideEffects: false,
          check: () => {
            throw new Error('bad check');
          },
        },
      },
    });
    expect(await h.run('run_tests', {}, () => ({ status: 'PASS' }))).toMatchObject({
      ok: true,
      value: { status: 'PASS' },
    });
    expect(await h.run('flaky', {}, () => 1)).toMatchObject({ ok: false });
  });

  it('a failureClass from the check is honoured: TRANSIENT results are retried', async () => {
    let calls = 0;
    const h = createHarness({
      policies: {
        poll: {
          sideEffects: false,
          check: (r: string) =>
            r === 'pending'
              ? { message: 'not ready yet', failureClass: 'TRANSIENT' as const }
              : undefined,
        },
      },
    });
    expect(await h.run('poll', {}, () => (++calls < 3 ? 'pending' : 'ready'))).toMatchObject({
      ok: true,
      value: 'ready',
    });
  });
});

describe('versioned replanning', () => {
  it('each REPLAN closes the plan version with what invalidated it; the model is told both versions', async () => {
    const h = createHarness({ policies: { query: { sideEffects: false } } });
    const notFound = () => {
      throw httpFailure(404, 'no such dashboard');
    };
    const first = await h.run('query', { q: 'latency' }, notFound);
    const second = await h.run('query', { q: 'errors' }, notFound);
    expect(first).toMatchObject({
      ok: false,
      contract: { recommended_recovery: 'REPLAN', invalidated_plan: 1, plan_version: 2 },
    });
    if (first.ok || second.ok) throw new Error('expected failures');
    expect(first.contract.guidance).toContain(
      'Replan: plan v1 invalidated by query NOT_FOUND; make plan v2',
    );
    expect(second.contract.guidance).toContain('make plan v3');
    expect(h.runtime.outcome().plan).toEqual({
      version: 3,
      history: [
        {
          version: 1,
          invalidated_by: {
            tool: 'query',
            code: 'NOT_FOUND',
            observation: 'query NOT_FOUND «no such dashboard»',
          },
        },
        {
          version: 2,
          invalidated_by: {
            tool: 'query',
            code: 'NOT_FOUND',
            observation: 'query NOT_FOUND «no such dashboard»',
          },
        },
      ],
    });
  });

  it("onPoison 'replan': the poison step stays quarantined, the run goes on with a new plan", async () => {
    const h = createHarness({
      onPoison: 'replan',
      policies: { extract: { sideEffects: false }, other: { sideEffects: false } },
    });
    const invalid = () => {
      throw httpFailure(422, 'total must be a number');
    };
    for (let i = 0; i < 2; i++) await h.run('extract', { doc: 1 }, invalid);
    const poison = await h.run('extract', { doc: 1 }, invalid);
    expect(poison).toMatchObject({
      ok: false,
      contract: { recommended_recovery: 'REPLAN', code: 'POISON' },
    });
    expect(h.runtime.isStopped()).toBe(false);
    let ran = false;
    expect(await h.run('extract', { doc: 1 }, () => (ran = true))).toMatchObject({
      ok: false,
      contract: { code: 'POISON' },
    });
    expect(ran).toBe(false);
    expect(await h.run('other', {}, () => 'fine')).toMatchObject({ ok: true });
    expect(h.runtime.outcome().plan.version).toBeGreaterThan(1);
  });
});

describe('compensation of completed writes', () => {
  function saga(ledger?: MemoryLedger) {
    const clock = createFakeClock(0);
    const undone: string[] = [];
    const policies = {
      create_resource: {
        sideEffects: true,
        compensate: (i: { name: string }) => undone.push(`resource ${i.name}`),
      },
      configure_dns: {
        sideEffects: true,
        compensate: (i: { host: string }) => undone.push(`dns ${i.host}`),
      },
      write_record: { sideEffects: true },
      send_email: { sideEffects: true },
    };
    const h = createHarness({ policies }, { clock, ledger: ledger ?? new MemoryLedger({ clock }) });
    return { h, undone, policies };
  }

  it('undoes the completed writes newest first, each once; reports what could not be undone', async () => {
    const { h, undone } = saga();
    await h.run('create_resource', { name: 'vm-1' }, () => 'created');
    await h.run('send_email', { to: 'ops' }, () => 'sent');
    await h.run('configure_dns', { host: 'vm-1.example' }, () => 'configured');
    await h.run('write_record', { id: 1 }, () => {
      throw httpFailure(409, 'record exists');
    });
    const report = await h.runtime.compensate();
    expect(report).toEqual({
      compensated: ['configure_dns', 'create_resource'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(undone).toEqual(['dns vm-1.example', 'resource vm-1']);
    expect(h.runtime.outcome()).toMatchObject({
      compensated: ['configure_dns', 'create_resource'],
      failed: [],
      not_compensable: ['send_email'],
    });
    expect(await h.runtime.compensate()).toEqual(report);
    expect(undone).toHaveLength(2);
  });

  it('at most once across workers: a second runtime on the same ledger does not undo again', async () => {
    const first = saga();
    await first.h.run('create_resource', { name: 'vm-1' }, () => 'created');
    await first.h.runtime.compensate();
    const second = saga(first.h.ledger);
    await second.h.run('create_resource', { name: 'vm-1' }, () => 'created again?'); // deduplicated
    expect(await second.h.runtime.compensate()).toMatchObject({ compensated: ['create_resource'] });
    expect([...first.undone, ...second.undone]).toEqual(['resource vm-1']);
  });

  it('a compensation that times out is left in doubt, not retried blindly', async () => {
    const h = createHarness({
      policies: {
        pay: {
          sideEffects: true,
          compensate: () => {
            throw timeoutAfterWrite();
          },
        },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    expect(await h.runtime.compensate()).toEqual({
      compensated: [],
      failed: ['pay'],
      not_compensable: [],
    });
    const outcome = h.runtime.outcome();
    expect(outcome.needs_reconciliation).toEqual([
      {
        tool: 'pay.compensate',
        idempotency_key: expect.stringMatching(/:compensate$/),
        code: 'RECONCILE_BY_HAND',
      },
    ]);
    expect(outcome).toMatchObject({ status: 'PARTIAL_RESULT', reason: 'NEEDS_RECONCILIATION' });
    expect(outcome.summary).toContain('in doubt, not re-sent: pay');
  });

  it('an undo declared with reconcile is proven after a lost response, not left in doubt', async () => {
    const undone: string[] = [];
    const h = createHarness({
      policies: {
        pay: {
          sideEffects: true,
          compensate: {
            undo: (input: { id: number }) => {
              undone.push(`refund ${input.id}`);
              throw timeoutAfterWrite(); // the refund landed, its response was lost
            },
            reconcile: () => ({ happened: undone.length > 0 }),
          },
        },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    expect(await h.runtime.compensate()).toEqual({
      compensated: ['pay'],
      failed: [],
      not_compensable: [],
    });
    expect(undone).toEqual(['refund 1']);
    expect(h.runtime.outcome().needs_reconciliation).toBeUndefined();
  });

  it('an undo declared idempotent is replayed behind its key after a lost response', async () => {
    const keys: string[] = [];
    const h = createHarness({
      policies: {
        pay: {
          sideEffects: true,
          compensate: {
            undo: () => {
              keys.push(callContext().idempotencyKey);
              if (keys.length === 1) throw timeoutAfterWrite();
              return 'refunded';
            },
            idempotent: true,
          },
        },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    // The replay waits out a backoff: the fake clock is driven through it.
    expect(await drive(h.clock, h.runtime.compensate())).toMatchObject({
      compensated: ['pay'],
      failed: [],
    });
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).toMatch(/:compensate$/);
  });

  it('a compensation object without undo, or with an unknown key, fails at construction', () => {
    expect(() =>
      createHarness({
        policies: { pay: { sideEffects: true, compensate: { idempotent: true } as never } },
      }),
    ).toThrow(/policies\.pay\.compensate\.undo/);
    expect(() =>
      createHarness({
        policies: {
          pay: { sideEffects: true, compensate: { undo: () => 1, idempotant: true } as never },
        },
      }),
    ).toThrow(/did you mean "idempotent"/);
  });

  it('a compensation that fails permanently is failed, and nothing is in doubt', async () => {
    const h = createHarness({
      policies: {
        pay: {
          sideEffects: true,
          compensate: () => {
            throw Object.assign(new Error('Gone'), { status: 410 });
          },
        },
      },
    });
    await h.run('pay', { id: 1 }, () => 'paid');
    expect(await h.runtime.compensate()).toMatchObject({ failed: ['pay'] });
    const outcome = h.runtime.outcome();
    expect(outcome.needs_reconciliation).toBeUndefined();
    expect(outcome.summary).toContain('not undone (failed): pay');
  });

  it('a run longer than the writes it keeps to undo: the forgotten ones are failed and counted, never skipped in silence', async () => {
    const undone: number[] = [];
    const h = createHarness({
      policies: {
        pay: { sideEffects: true, compensate: (i: { id: number }) => undone.push(i.id) },
        notify: { sideEffects: true },
      },
    });
    const writes = maxUndoableWrites + maxUndoableWrites / 10 + 1;
    for (let id = 0; id < writes; id++) {
      await h.run('pay', { id }, () => `paid ${id}`);
      if (id % 10 === 0) await h.run('notify', { id }, () => 'sent');
    }
    const report = await h.runtime.compensate();
    const forgotten = writes - report.compensated.length;
    expect(report.compensated.length).toBe(maxUndoableWrites);
    expect(forgotten).toBeGreaterThan(0);
    // Newest first: the newest write was undone first, the oldest never.
    expect(undone[0]).toBe(writes - 1);
    expect(undone).not.toContain(0);
    expect(report.forgotten).toBe(forgotten);
    expect(report.failed).toEqual(Array.from({ length: forgotten }, () => 'pay'));
    expect(report.not_compensable).toHaveLength(Math.ceil(writes / 10));
    const outcome = h.runtime.outcome();
    expect(outcome).toMatchObject({ forgotten, failed: report.failed });
    expect(outcome.summary).toContain(
      `not undone, older than the newest ${maxUndoableWrites.toLocaleString('en-US')} writes the run keeps: ${forgotten} of pay (undo them by hand)`,
    );
    expect(outcome.summary).not.toContain('not undone (failed)');
    const event = h.events.find((e) => e.type === 'compensation.forgotten');
    expect(event).toMatchObject({ count: forgotten, tools: ['pay'], kept: maxUndoableWrites });
    const lines: string[] = [];
    createConsoleTrace({ color: false, write: (line) => lines.push(line) })(event!);
    expect(lines.join('\n')).toContain(`not undone: ${forgotten} older writes of pay`);
    expect(outcome.summary).toContain('newest 10,000 writes');
  });

  it('autoCompensate undoes the run’s writes when it ends FAILED or BLOCKED', async () => {
    const undone: string[] = [];
    const h = createHarness({
      autoCompensate: true,
      policies: {
        create_resource: { sideEffects: true, compensate: () => undone.push('vm-1') },
        github: { sideEffects: false, resource: () => 'https://github.com/acme/secret' },
      },
    });
    await h.run('create_resource', { name: 'vm-1' }, () => 'created');
    await h.run('github', {}, () => {
      throw httpFailure(403);
    });
    expect(h.runtime.outcome()).toMatchObject({
      status: 'BLOCKED',
      compensated: ['create_resource'],
    });
    expect(undone).toEqual(['vm-1']);
  });
});

describe('modelFailed: the model loop failed outside recourse', () => {
  const policies = {
    create_resource: { sideEffects: true, compensate: () => undefined },
    github: { sideEffects: false, resource: () => 'https://github.com/acme/secret' },
  };

  it('ends the run FAILED with the error classified, undoes the writes once, and keeps that cause', async () => {
    const undone: string[] = [];
    const h = createHarness({
      autoCompensate: true,
      policies: {
        ...policies,
        create_resource: { sideEffects: true, compensate: () => undone.push('vm-1') },
      },
    });
    await h.run('create_resource', { name: 'vm-1' }, () => 'created');
    const outcome = await h.runtime.modelFailed(httpFailure(503, 'Service Unavailable'));
    expect(outcome).toMatchObject({
      status: 'FAILED',
      reason: 'MODEL_UNAVAILABLE',
      compensated: ['create_resource'],
    });
    expect(outcome.failures).toEqual([
      expect.objectContaining({ tool: 'model', failure_class: 'TRANSIENT' }),
    ]);
    // A second report (another catch block) changes nothing and undoes nothing again.
    expect(await h.runtime.modelFailed(new Error('again'))).toEqual(outcome);
    expect(undone).toEqual(['vm-1']);
  });

  it('a quota error is MODEL_QUOTA_EXCEEDED; without autoCompensate nothing is undone', async () => {
    const undone: string[] = [];
    const h = createHarness({
      policies: { create_resource: { sideEffects: true, compensate: () => undone.push('x') } },
    });
    await h.run('create_resource', {}, () => 'created');
    const quota = Object.assign(httpFailure(429, 'You exceeded your current quota'), {
      code: 'insufficient_quota',
    });
    expect(await h.runtime.modelFailed(quota)).toMatchObject({
      status: 'FAILED',
      reason: 'MODEL_QUOTA_EXCEEDED',
    });
    expect(undone).toEqual([]);
  });

  it('a run recourse already stopped keeps its own cause (the error is the stop it threw)', async () => {
    const h = createHarness({ policies });
    await h.run('github', {}, () => {
      throw httpFailure(403);
    });
    const blocked = h.runtime.outcome();
    expect(blocked.status).toBe('BLOCKED');
    expect(await h.runtime.modelFailed(new Error('tool call failed'))).toEqual(blocked);
  });
});
