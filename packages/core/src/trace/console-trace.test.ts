import { describe, expect, it } from 'vitest';
import type { Outcome } from '../contract/outcome.js';
import type { RecoveryEvent } from '../runtime/run/events.js';
import { consoleTraceLegend, createConsoleTrace } from './console-trace.js';

const call = { runId: 'run-1', tool: 'lookup', toolCallId: 'call_1', idempotencyKey: '', at: 0 };
const failed = { failureClass: 'TRANSIENT', code: 'HTTP_503', message: 'down' } as const;
const outcome: Outcome = {
  status: 'BLOCKED',
  reason: 'AUTHORIZATION_DENIED',
  summary: 'Blocked.',
  completed_steps: [],
  failures: [],
  recoveries: [],
  plan: { version: 1, history: [] },
};

/** One event of every kind the trace prints a line for. */
const events: RecoveryEvent[] = [
  { ...call, type: 'call.started', attempt: 2, input: {} },
  { ...call, type: 'failure.classified', attempt: 1, classification: failed, error: null },
  {
    ...call,
    type: 'decision.made',
    attempt: 1,
    decision: { action: 'RETRY', code: 'RETRY', reason: 'retry', terminal: false },
    fingerprint: 'f',
    repairAttempts: 0,
  },
  { ...call, type: 'retry.scheduled', attempt: 1, delayMs: 150 },
  { ...call, type: 'reconcile.finished', happened: true },
  { ...call, type: 'call.deduplicated', source: 'ledger' },
  { ...call, type: 'call.blocked', resource: 'https://github.com/acme/secret', reason: 'DENIED' },
  {
    ...call,
    type: 'call.failed',
    contract: {
      status: 'FAILED',
      failure_class: 'TRANSIENT',
      recommended_recovery: 'ABORT',
      retry_same_action: false,
      code: 'ATTEMPTS_EXHAUSTED',
      tool: 'lookup',
      reason: 'out of attempts',
      guidance: 'stop',
    },
  },
  { ...call, type: 'call.succeeded', attempt: 1, degraded: false },
  { ...call, type: 'result.unstorable', reason: 'a BigInt' },
  { ...call, type: 'compensation.finished', status: 'compensated' },
  { type: 'policy.undeclared', runId: 'run-1', tool: 'notify', at: 0 },
  { type: 'policy.unused', runId: 'run-1', tool: 'lookups', suggestion: 'lookup', at: 0 },
  {
    type: 'plan.replanned',
    runId: 'run-1',
    from: 1,
    to: 2,
    tool: 'lookup',
    code: 'NOT_FOUND',
    observation: 'lookup NOT_FOUND',
    at: 0,
  },
  {
    type: 'denial.recorded',
    runId: 'run-1',
    denial: { resource: 'https://github.com/acme/secret', tool: 'lookup', reason: 'X', at: 0 },
    at: 0,
  },
  { type: 'access.granted', runId: 'run-1', resource: 'r', grantedBy: 'ops', at: 0 },
  { type: 'run.stopped', runId: 'run-1', outcome, at: 0 },
];

function traced(feed: (trace: ReturnType<typeof createConsoleTrace>) => void): string[] {
  const lines: string[] = [];
  feed(createConsoleTrace({ color: false, write: (line) => lines.push(line) }));
  return lines;
}

describe('consoleTraceLegend', () => {
  it('explains every mark the trace prints, • included', () => {
    const lines = traced((trace) => {
      for (const event of events) trace(event);
    });
    // A line's mark is its first word ("attempt 2" has words, not a mark).
    const marks = new Set(
      lines.map((line) => line.trim().split(' ')[0] ?? '').filter((word) => !/^[a-z]/i.test(word)),
    );
    expect([...marks].sort()).toEqual(
      ['→', '✗', '⇒', '↻', '?', '=', '⛔', '✎', '✓', '!', '↶', '•', '■'].sort(),
    );
    for (const mark of marks) expect(consoleTraceLegend).toContain(`${mark} `);
    expect(consoleTraceLegend).toContain('⋯ ');
    expect(consoleTraceLegend).toMatch(/• a note on a tool's policy/);
  });
});

describe('createConsoleTrace', () => {
  it('folds calls refused after the stop into one line, singular or plural', () => {
    const refused = (id: string): RecoveryEvent => ({
      ...call,
      toolCallId: id,
      type: 'call.blocked',
      resource: '*',
      reason: 'RUN_STOPPED',
    });
    const one = traced((trace) => {
      trace(refused('call_2'));
      trace.outcome(outcome);
    });
    expect(one[0]).toBe('  ⋯ 1 more call of the same turn, not run (the run had stopped)');
    const three = traced((trace) => {
      for (const id of ['call_2', 'call_3', 'call_4']) trace(refused(id));
      trace({ type: 'policy.undeclared', runId: 'run-1', tool: 'notify', at: 0 });
    });
    expect(three).toEqual([
      '  ⋯ 3 more calls of the same turn, not run (the run had stopped)',
      '• notify does not declare sideEffects: treated as a tool that may write',
    ]);
  });

  it('prints each blocked resource once, in order, however many tools were refused on it', () => {
    const secret = 'https://github.com/acme/secret';
    const lines = traced((trace) =>
      trace.outcome({
        ...outcome,
        blocked: [
          { tool: 'github_api', resource: secret, reason: 'FORBIDDEN' },
          { tool: 'http_get', resource: 'https://example.com', reason: 'SCOPE' },
          { tool: 'shell', resource: secret, reason: 'DENIED_EARLIER' },
        ],
      }),
    );
    expect(lines.at(-1)).toBe(
      `  {"completed_steps":[],"blocked":["${secret}","https://example.com"]}`,
    );
  });
});
