import { describe, expect, it } from 'vitest';
import { buildOutcome } from './build-outcome.js';
import { RunState } from './run-state.js';
import { maxUndoableWrites } from './write-history.js';

describe('RunState bounds', () => {
  it('keeps the newest 1,000 completed steps of a long run, oldest dropped first', () => {
    const state = new RunState();
    for (let i = 0; i < 2_500; i++) {
      state.dispatch({ type: 'succeeded', tool: `step-${i}`, operation: `op-${i}` });
      state.dispatch({ type: 'write.completed', write: { tool: 'pay', key: `k-${i}` } });
    }
    const steps = state.snapshot().completedSteps;
    expect(steps.length).toBeGreaterThanOrEqual(1_000);
    expect(steps.length).toBeLessThanOrEqual(1_100);
    expect(steps.at(-1)).toBe('step-2499');
    expect(steps).not.toContain('step-0');
    expect(state.hasCompleted('op-2499')).toBe(true);
    expect(state.hasCompleted('op-1000')).toBe(false);

    // Writes without a compensation: only their tool names are needed, every one is counted.
    const { undoable, notCompensable, forgotten } = state.writes;
    expect(undoable).toEqual([]);
    expect(forgotten).toEqual([]);
    expect(notCompensable).toHaveLength(2_500);
    expect(new Set(notCompensable)).toEqual(new Set(['pay']));
  });

  it('keeps at least the newest 10,000 writes with a compensation, apart from everything else; counts the ones it drops', () => {
    const state = new RunState();
    const undo = (i: number) => ({ input: { id: i }, result: `r-${i}` });
    for (let i = 0; i < 12_500; i++) {
      state.dispatch({
        type: 'write.completed',
        write: { tool: 'pay', key: `p-${i}`, undo: undo(i) },
      });
      // Reads and writes that cannot be undone never push an undo out.
      state.dispatch({ type: 'succeeded', tool: 'read', operation: `read-${i}` });
      state.dispatch({ type: 'write.completed', write: { tool: 'email', key: `e-${i}` } });
    }
    state.dispatch({ type: 'write.completed', write: { tool: 'ship', key: 's-0', undo: undo(0) } });
    const { undoable, notCompensable, forgotten } = state.writes;
    expect(undoable.length).toBeGreaterThanOrEqual(maxUndoableWrites);
    expect(undoable.length).toBeLessThanOrEqual(maxUndoableWrites * 1.1);
    expect(undoable.at(-1)).toMatchObject({ tool: 'ship', key: 's-0' });
    // Oldest first, in order, without gaps, each with what its undo needs.
    const first = Number(undoable[0]?.key.slice(2));
    expect(undoable.slice(0, -1).map((w) => w.key)).toEqual(
      undoable.slice(0, -1).map((_, i) => `p-${first + i}`),
    );
    expect(undoable[0]).toEqual({ tool: 'pay', key: `p-${first}`, undo: undo(first) });
    // Nothing is lost without a trace: held + forgotten = every write with an undo.
    expect(forgotten).toEqual(Array.from({ length: first }, () => 'pay'));
    expect(undoable.length + forgotten.length).toBe(12_501);
    expect(notCompensable).toHaveLength(12_500);
  });

  it('counts an operation once however often it completes', () => {
    const state = new RunState();
    for (let i = 0; i < 3; i++) {
      state.dispatch({
        type: 'write.completed',
        write: { tool: 'pay', key: 'k', undo: { input: 1, result: 2 } },
      });
      state.dispatch({ type: 'write.completed', write: { tool: 'email', key: 'e' } });
    }
    expect(state.writes).toEqual({
      undoable: [{ tool: 'pay', key: 'k', undo: { input: 1, result: 2 } }],
      notCompensable: ['email'],
      forgotten: [],
    });
  });

  it('counts a step once however often it completes', () => {
    const state = new RunState();
    for (let i = 0; i < 3; i++)
      state.dispatch({ type: 'succeeded', tool: 'read', operation: 'read' });
    expect(state.snapshot().completedSteps).toEqual(['read']);
  });
});

describe('buildOutcome of a run that went on past failures', () => {
  it('says COMPLETED without claiming every call completed', () => {
    const state = new RunState();
    state.dispatch({
      type: 'failed',
      tool: 'query_deployments',
      classification: { failureClass: 'PERMANENT', code: 'NOT_FOUND', message: 'none' },
      decision: { action: 'REPLAN', code: 'REPLAN', reason: 'replan', terminal: false },
    });
    const outcome = buildOutcome(state.snapshot(), 'ask');
    expect(outcome.status).toBe('COMPLETED');
    expect(outcome.summary).toBe(
      'Completed: the run went on past 1 failed call the model was told about (see failures).',
    );
    expect(buildOutcome(new RunState().snapshot(), 'ask').summary).toBe(
      'Every tool call completed.',
    );
  });
});

describe('the outcome lists each thing once', () => {
  const denied = {
    tool: 'shell',
    resource: 'https://github.com/acme/secret',
    reason: 'DENIED_EARLIER',
  };

  it('blocked: the same tool refused on the same resource twice is one entry, in the order first seen', () => {
    const state = new RunState();
    state.dispatch({ type: 'blocked', entry: denied });
    state.dispatch({
      type: 'blocked',
      entry: { tool: 'http_get', resource: 'https://github.com/acme/other', reason: 'SCOPE' },
    });
    state.dispatch({ type: 'blocked', entry: { ...denied } });
    // Another tool on the same resource is another refusal: it stays.
    state.dispatch({ type: 'blocked', entry: { ...denied, tool: 'github_api' } });
    const outcome = buildOutcome(state.snapshot(), 'ask');
    expect(outcome.blocked).toEqual([
      denied,
      { tool: 'http_get', resource: 'https://github.com/acme/other', reason: 'SCOPE' },
      { ...denied, tool: 'github_api' },
    ]);
    // Two tools refused on one resource lack the same evidence: named once.
    expect(outcome.missing_evidence).toEqual([
      'https://github.com/acme/secret (blocked)',
      'https://github.com/acme/other (blocked)',
    ]);
  });

  it('blocked: an approval declined twice, or requested again, is one entry', () => {
    const state = new RunState();
    const asked = { tool: 'deploy', resource: 'k8s://prod', reason: 'APPROVAL_REQUESTED' };
    state.dispatch({ type: 'escalated', entries: [asked] });
    state.dispatch({ type: 'escalated', entries: [asked] });
    expect(state.snapshot().blocked).toEqual([asked]);
    const decline = {
      type: 'escalation.answered',
      tool: 'deploy',
      resources: ['k8s://prod'],
      declined: true,
    } as const;
    state.dispatch({ ...decline, resources: [...decline.resources] });
    state.dispatch({ type: 'escalated', entries: [asked] });
    state.dispatch({ ...decline, resources: [...decline.resources] });
    expect(state.snapshot().blocked).toEqual([{ ...asked, reason: 'APPROVAL_DECLINED' }]);
  });

  it('missing_evidence: a fallback used twice by the same tool is named once', () => {
    const state = new RunState();
    for (let i = 0; i < 2; i++) {
      state.dispatch({ type: 'degraded', tool: 'deployment_metrics', missing: 'live metrics' });
    }
    state.dispatch({ type: 'degraded', tool: 'logs', missing: 'live logs' });
    const outcome = buildOutcome(state.snapshot(), 'ask');
    expect(outcome.missing_evidence).toEqual(['live metrics', 'live logs']);
    expect(outcome.completed_steps).toEqual(['deployment_metrics (degraded)', 'logs (degraded)']);
  });

  it('needs_reconciliation: the same in-doubt write failing twice is one entry', () => {
    const state = new RunState();
    for (let i = 0; i < 2; i++) {
      state.dispatch({
        type: 'failed',
        tool: 'post_address',
        classification: { failureClass: 'UNKNOWN_OUTCOME', code: 'TIMEOUT', message: 'timeout' },
        decision: {
          action: 'ABORT',
          code: 'RECONCILE_BY_HAND',
          reason: 'reconcile by hand',
          terminal: true,
        },
        inDoubt: { key: 'run-1:post_address:abc', code: 'RECONCILE_BY_HAND' },
      });
    }
    const outcome = buildOutcome(state.snapshot(), 'ask');
    expect(outcome.needs_reconciliation).toEqual([
      {
        tool: 'post_address',
        idempotency_key: 'run-1:post_address:abc',
        code: 'RECONCILE_BY_HAND',
      },
    ]);
    // Failures are the calls the model was told about: two calls, two entries.
    expect(outcome.failures).toHaveLength(2);
  });
});
