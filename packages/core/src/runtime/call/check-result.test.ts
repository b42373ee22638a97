import { describe, expect, it } from 'vitest';
import { createHarness } from '../../../test-support/runtime-harness.js';

const report = { status: 'FAIL', signature: 'AssertionError at x.test.ts:12' };

function checked(check: (result: typeof report) => unknown) {
  return createHarness({
    policies: { run_tests: { sideEffects: false, check: check as never } },
  });
}

describe('a check verdict', () => {
  it.each([undefined, null, false, 0, ''])('%j lets the value through', async (verdict) => {
    const h = checked(() => verdict);
    expect(await h.run('run_tests', {}, () => report)).toMatchObject({ ok: true, value: report });
  });

  it('a string is the failure’s message, VALIDATION / CHECK_FAILED', async () => {
    const h = checked((r) => (r.status === 'FAIL' ? r.signature : undefined));
    const result = await h.run('run_tests', {}, () => report);
    expect(result).toMatchObject({
      ok: false,
      classification: {
        failureClass: 'VALIDATION',
        code: 'CHECK_FAILED',
        message: 'AssertionError at x.test.ts:12',
        source: 'check',
      },
      decision: { action: 'REPAIR' },
    });
  });

  it('true fails with a message of its own', async () => {
    const h = checked(() => true);
    const result = await h.run('run_tests', {}, () => report);
    expect(result).toMatchObject({ ok: false, classification: { message: 'check failed' } });
  });

  it('a failureClass outside the six is read as VALIDATION; one of the six is kept', async () => {
    const typo = checked(() => ({ message: 'bad', failureClass: 'FATAL' }));
    expect(await typo.run('run_tests', {}, () => report)).toMatchObject({
      classification: { failureClass: 'VALIDATION' },
    });
    const permanent = checked(() => ({
      message: 'gone',
      failureClass: 'PERMANENT',
      code: 'NO_SUCH_TEST',
    }));
    expect(await permanent.run('run_tests', {}, () => report)).toMatchObject({
      classification: { failureClass: 'PERMANENT', code: 'NO_SUCH_TEST' },
      decision: { action: 'REPLAN' },
    });
  });

  it('a check that throws fails the call as CHECK_THREW: the value was not verified', async () => {
    const h = checked(() => {
      throw new TypeError("Cannot read properties of undefined (reading 'status')");
    });
    const result = await h.run('run_tests', {}, () => report);
    expect(result).toMatchObject({
      ok: false,
      classification: { failureClass: 'PERMANENT', code: 'CHECK_THREW', source: 'check' },
    });
    if (result.ok) throw new Error('unreachable');
    expect(result.classification.message).toContain('Cannot read properties');
  });
});
