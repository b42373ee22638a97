import { describe, expect, it } from 'vitest';
import type { Outcome } from '../contract/outcome.js';
import { decideRecovery } from '../policy/decide-recovery.js';
import type { RecoveryEvent } from '../runtime/run/events.js';
import { consoleTraceLegend, createConsoleTrace, shortCallId } from './console-trace.js';

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
    // A line's mark is its first word after the call id ("attempt 2" has words, not a mark).
    const marks = new Set(
      lines
        .map(
          (line) =>
            line
              .replace(/^call_1 /, '')
              .trim()
              .split(' ')[0] ?? '',
        )
        .filter((word) => !/^[a-z]/i.test(word)),
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

  const clone = 'git clone git@github.com:acme/secret.git';
  const curl =
    'curl -H "Authorization: Bearer sk-proj-Qx7Lm2Vb9Kp4Zt8Rw3Yn6Hc1Jd5Fg0Ae" https://api.github.com/repos/acme/secret';

  it('prints the input of a refused call and of a call answered from the ledger, redacted', () => {
    const lines = traced((trace) => {
      trace({
        ...call,
        tool: 'shell',
        toolCallId: 'call_7',
        type: 'call.blocked',
        resource: 'https://github.com/acme/secret',
        reason: 'DENIED_EARLIER',
        input: { command: clone },
      });
      trace({
        ...call,
        tool: 'shell',
        toolCallId: 'call_8',
        type: 'call.blocked',
        resource: '*',
        reason: 'DENIED_EARLIER',
        input: { command: curl },
      });
      trace({
        ...call,
        toolCallId: 'call_9',
        type: 'call.deduplicated',
        source: 'ledger',
        input: { paymentId: 'p-42' },
      });
    });
    expect(lines).toEqual([
      `call_7 → shell(${JSON.stringify({ command: clone })})`,
      'call_7   ⛔ refused before it ran: https://github.com/acme/secret (DENIED_EARLIER)',
      'call_8 → shell({"command":"curl -H \\"Authorization: Bearer [REDACTED]\\" https://api.github.com/repos/acme/secret"})',
      'call_8   ⛔ refused before it ran: * (DENIED_EARLIER)',
      'call_9 → lookup({"paymentId":"p-42"})',
      'call_9   = not sent again: the stored result from the ledger',
    ]);
    expect(lines.join('\n')).not.toContain('Qx7Lm2Vb9Kp4');
  });

  it('starts every line of a call with its short id, so calls of one turn can be told apart', () => {
    const a = { ...call, toolCallId: 'call_Xy7Qk2LmN8pR4sT6vW9zB3cD' };
    const b = { ...call, toolCallId: 'call_Xy7Qk2LmN8pR4sT6vW9zB3cE' };
    const lines = traced((trace) => {
      trace({ ...a, type: 'call.started', attempt: 1, input: { q: 'a' } });
      trace({ ...b, type: 'call.started', attempt: 1, input: { q: 'b' } });
      trace({ ...b, type: 'call.succeeded', attempt: 1, degraded: false });
      trace({ ...a, type: 'failure.classified', attempt: 1, classification: failed, error: null });
    });
    expect(shortCallId(a.toolCallId)).toBe('…vW9zB3cD');
    expect(shortCallId('call_1')).toBe('call_1');
    expect(lines).toEqual([
      '…vW9zB3cD → lookup({"q":"a"})',
      '…vW9zB3cE → lookup({"q":"b"})',
      '…vW9zB3cE   ✓ ok',
      '…vW9zB3cD   ✗ TRANSIENT HTTP_503: down',
    ]);
  });

  it('names the action once: the code only when it says more', () => {
    const decided = (action: 'RETRY' | 'RECONCILE' | 'ABORT', code: string): RecoveryEvent => ({
      ...call,
      type: 'decision.made',
      attempt: 1,
      decision: { action, code: code as 'RETRY', reason: 'why', terminal: action === 'ABORT' },
      fingerprint: 'f',
      repairAttempts: 0,
    });
    const lines = traced((trace) => {
      trace(decided('RETRY', 'RETRY'));
      trace(decided('RECONCILE', 'RECONCILE'));
      trace(decided('ABORT', 'POISON'));
    });
    expect(lines.slice(1)).toEqual([
      'call_1   ⇒ RETRY: why',
      'call_1   ⇒ RECONCILE: why',
      'call_1   ⇒ ABORT POISON: why',
    ]);
    expect(lines.join('\n')).not.toMatch(/\b(RETRY|RECONCILE) \1\b/);
  });

  it('explains a retry by the failure it answers, not as a transport fault when it was none', () => {
    const state = {
      tool: 'extract_alert',
      failureClass: 'TRANSIENT',
      sideEffects: false,
      attempts: 1,
      repairAttempts: 0,
    } as const;
    const invalid = decideRecovery(
      { ...state, code: 'INVALID_STRUCTURED_OUTPUT' },
      { random: () => 0.5 },
    );
    const timeout = decideRecovery({ ...state, code: 'TIMEOUT' }, { random: () => 0.5 });
    const notLanded = decideRecovery(
      { ...state, failureClass: 'UNKNOWN_OUTCOME', code: 'TIMEOUT', reconciled: 'not_happened' },
      { random: () => 0.5 },
    );
    const lines = traced((trace) => {
      for (const decision of [invalid, timeout, notLanded]) {
        trace({
          ...call,
          type: 'decision.made',
          attempt: 1,
          decision,
          fingerprint: 'f',
          repairAttempts: 0,
        });
      }
    });
    expect(lines.slice(1)).toEqual([
      'call_1   ⇒ RETRY: transient failure (INVALID_STRUCTURED_OUTPUT) that changed nothing: try again after a backoff',
      'call_1   ⇒ RETRY: transient failure (TIMEOUT) that changed nothing: try again after a backoff',
      'call_1   ⇒ RETRY: the reconcile read shows the write did not land: send it again after a backoff',
    ]);
    expect(lines.join('\n')).not.toContain('transport fault');
  });

  it('prints a header for every call, also when two runs (or a restart) reuse a call id', () => {
    const lines = traced((trace) => {
      trace({ ...call, type: 'call.started', attempt: 1, input: { paymentId: 'p-1' } });
      trace({ ...call, type: 'call.succeeded', attempt: 1, degraded: false });
      // The same run id after a restart, the same call id: answered from the ledger.
      trace({ ...call, type: 'call.deduplicated', source: 'ledger', input: { paymentId: 'p-1' } });
      // Another run's call_1.
      trace({
        ...call,
        runId: 'run-2',
        type: 'call.started',
        attempt: 1,
        input: { paymentId: 'p-2' },
      });
      trace({
        ...call,
        runId: 'run-2',
        type: 'call.started',
        attempt: 2,
        input: { paymentId: 'p-2' },
      });
    });
    expect(lines).toEqual([
      'call_1 → lookup({"paymentId":"p-1"})',
      'call_1   ✓ ok',
      'call_1 → lookup({"paymentId":"p-1"})',
      'call_1   = not sent again: the stored result from the ledger',
      'call_1 → lookup({"paymentId":"p-2"})',
      'call_1   attempt 2',
    ]);
  });
});
