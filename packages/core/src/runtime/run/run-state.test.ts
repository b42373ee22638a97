import { describe, expect, it } from 'vitest';
import { buildOutcome } from './build-outcome.js';
import { RunState } from './run-state.js';

describe('RunState bounds', () => {
  it('keeps the newest 1,000 completed steps and writes of a long run, oldest dropped first', () => {
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

    const writes = state.writes.map((write) => write.key);
    expect(writes.length).toBeLessThanOrEqual(1_100);
    expect(writes.at(-1)).toBe('k-2499');
    // Oldest first, in order, without gaps.
    const first = Number(writes[0]?.slice(2));
    expect(writes).toEqual(writes.map((_, i) => `k-${first + i}`));
  });

  it('counts an operation once however often it completes', () => {
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
