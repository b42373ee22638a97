import { describe, expect, it } from 'vitest';
import { createHarness, httpFailure } from '../../../test-support/runtime-harness.js';
import { InvalidOptionsError } from '../../errors.js';

const repo = (name: string) => `https://github.com/${name}`;
const policies = {
  github_api: { resource: (i: { path: string }) => repo(i.path) },
  notes: {}, // no resource function: touches everything
};
const forbidden = () => {
  throw httpFailure(403, 'Resource not accessible');
};
const ok = () => 'ok';

/** A run that was refused `acme/secret` and keeps working on other resources. */
async function deniedRun(extra: Parameters<typeof createHarness>[0] = {}) {
  const h = createHarness({ policies, onDenial: 'continue', ...extra });
  await h.run('github_api', { path: 'acme/secret' }, forbidden);
  return h;
}

describe('checkBlocked', () => {
  it('reports what execute would refuse, without running or recording anything', async () => {
    const h = await deniedRun();
    const events = h.events.length;
    const outcome = h.runtime.outcome();
    await expect(
      h.runtime.checkBlocked('github_api', { path: 'acme/secret/issues' }),
    ).resolves.toEqual({
      blocked: true,
      resource: repo('acme/secret'),
      reason: 'DENIED_EARLIER',
      grantable: true,
      resources: [repo('acme/secret/issues')],
    });
    await expect(h.runtime.checkBlocked('github_api', { path: 'acme/public' })).resolves.toEqual({
      blocked: false,
    });
    expect(h.events).toHaveLength(events);
    expect(h.runtime.outcome()).toEqual(outcome);
  });

  it('a tool without a resource function is blocked and not grantable', async () => {
    const h = await deniedRun();
    await expect(h.runtime.checkBlocked('notes', {})).resolves.toMatchObject({
      blocked: true,
      grantable: false,
    });
  });

  it('after a stop (default onDenial), nothing is grantable', async () => {
    const h = createHarness({ policies });
    await h.run('github_api', { path: 'acme/secret' }, forbidden);
    await expect(h.runtime.checkBlocked('github_api', { path: 'acme/public' })).resolves.toEqual({
      blocked: true,
      resource: '(run stopped)',
      reason: 'RUN_STOPPED',
      grantable: false,
      resources: [],
    });
    expect(
      await h.runtime.requestApproval({
        toolName: 'github_api',
        toolCallId: 'c',
        input: { path: 'acme/secret' },
      }),
    ).toBeUndefined();
  });
});

describe('grantAccess', () => {
  it('opens the granted resource and what lies below it, not its siblings or a wider reach', async () => {
    const h = await deniedRun();
    await h.runtime.grantAccess({ resource: repo('acme/secret/docs'), grantedBy: 'ops:ana' });
    const below = await h.run('github_api', { path: 'acme/secret/docs/a.md' }, ok);
    const sibling = await h.run('github_api', { path: 'acme/secret/src' }, ok);
    const wider = await h.run('github_api', { path: 'acme/secret' }, ok);
    expect(below).toMatchObject({ ok: true, value: 'ok' });
    expect(sibling).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
    expect(wider).toMatchObject({ ok: false, contract: { status: 'BLOCKED' } });
  });

  it('never opens a tool without a resource function', async () => {
    const h = await deniedRun();
    await h.runtime.grantAccess({ resource: repo('acme/secret'), grantedBy: 'ops:ana' });
    expect(await h.run('notes', {}, ok)).toMatchObject({
      ok: false,
      contract: { status: 'BLOCKED' },
    });
    expect(await h.run('github_api', { path: 'acme/secret' }, ok)).toMatchObject({ ok: true });
  });

  it('lifts a static scope deny rule for the granted resource only', async () => {
    const h = createHarness({ policies, scope: { deny: [`${repo('acme')}/**`] } });
    await h.runtime.grantAccess({ resource: repo('acme/docs'), grantedBy: 'ops:ana' });
    expect(await h.run('github_api', { path: 'acme/docs' }, ok)).toMatchObject({ ok: true });
    expect(await h.run('github_api', { path: 'acme/secret' }, ok)).toMatchObject({
      ok: false,
      contract: { code: 'SCOPE_DENY' },
    });
  });

  it('survives in the ledger: a second runtime on the same ledger honours it', async () => {
    const h = await deniedRun();
    await h.runtime.grantAccess({ resource: repo('acme/secret'), grantedBy: 'ops:ana' });
    const other = createHarness(
      { policies, onDenial: 'continue' },
      { ledger: h.ledger, clock: h.clock },
    );
    expect(await other.run('github_api', { path: 'acme/secret/x' }, ok)).toMatchObject({
      ok: true,
    });
    expect(await other.run('github_api', { path: 'acme/other' }, ok)).toMatchObject({ ok: true });
    // A different run on the same ledger is not granted anything.
    const otherRun = createHarness(
      { runId: 'run-9', policies, onDenial: 'continue' },
      { ledger: h.ledger, clock: h.clock },
    );
    await otherRun.run('github_api', { path: 'acme/secret' }, forbidden);
    expect(await otherRun.run('github_api', { path: 'acme/secret/x' }, ok)).toMatchObject({
      ok: false,
    });
  });

  it('refuses to grant everything or to grant anonymously', async () => {
    const h = await deniedRun();
    await expect(h.runtime.grantAccess({ resource: '*', grantedBy: 'ops' })).rejects.toThrow(
      InvalidOptionsError,
    );
    await expect(
      h.runtime.grantAccess({ resource: repo('acme/secret'), grantedBy: ' ' }),
    ).rejects.toThrow(InvalidOptionsError);
  });
});

describe('approval requests', () => {
  const call = { toolName: 'github_api', toolCallId: 'call_9', input: { path: 'acme/secret/a' } };

  it('names the closed resources and why; the outcome lists the pending approval', async () => {
    const h = await deniedRun();
    const request = await h.runtime.requestApproval(call);
    expect(request).toMatchObject({
      resources: [repo('acme/secret/a')],
      blockedBy: { resource: repo('acme/secret'), reason: 'DENIED_EARLIER' },
    });
    expect(request?.message).toContain('denied earlier');
    expect(h.runtime.outcome().blocked).toContainEqual({
      tool: 'github_api',
      resource: repo('acme/secret/a'),
      reason: 'APPROVAL_REQUESTED',
    });
    expect(
      await h.runtime.requestApproval({ ...call, input: { path: 'acme/public' } }),
    ).toBeUndefined();
  });

  it('approved: grants what was escalated for that call, then the call runs', async () => {
    const h = await deniedRun();
    await h.runtime.requestApproval(call);
    const answer = await h.runtime.resolveApproval({
      ...call,
      approved: true,
      decidedBy: 'ops:ana',
    });
    expect(answer.granted).toEqual([repo('acme/secret/a')]);
    expect(await h.run('github_api', call.input, ok, call.toolCallId)).toMatchObject({ ok: true });
    expect(h.runtime.outcome().blocked ?? []).toEqual([]);
  });

  it('an approval of a call that was never escalated opens nothing', async () => {
    const h = await deniedRun();
    const answer = await h.runtime.resolveApproval({ ...call, approved: true, decidedBy: 'ops' });
    expect(answer.granted).toEqual([]);
    expect(await h.run('github_api', call.input, ok)).toMatchObject({ ok: false });
  });

  it('declined: stays blocked, the outcome says so and the model is told the route is closed', async () => {
    const h = await deniedRun();
    await h.runtime.requestApproval(call);
    h.runtime.takeGuidance();
    await h.runtime.resolveApproval({ ...call, approved: false, decidedBy: 'ops:ana' });
    expect(h.runtime.outcome().blocked).toContainEqual({
      tool: 'github_api',
      resource: repo('acme/secret/a'),
      reason: 'APPROVAL_DECLINED',
    });
    expect(h.runtime.takeGuidance()).toMatch(/declined.*route is closed/s);
    expect(await h.run('github_api', call.input, ok)).toMatchObject({ ok: false });
  });

  it('an escalation made on one worker can be approved on another', async () => {
    const h = await deniedRun();
    await h.runtime.requestApproval(call);
    const other = createHarness(
      { policies, onDenial: 'continue' },
      { ledger: h.ledger, clock: h.clock },
    );
    const answer = await other.runtime.resolveApproval({
      ...call,
      approved: true,
      decidedBy: 'ops',
    });
    expect(answer.granted).toEqual([repo('acme/secret/a')]);
    expect(await h.run('github_api', call.input, ok)).toMatchObject({ ok: true });
  });
});
