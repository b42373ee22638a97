import type { Outcome, Recovery } from '../../contract/outcome.js';
import type { RunSnapshot } from './run-state.js';
import { maxUndoableWrites } from './write-history.js';

/** The run's explicit status, from what it did: terminal, degraded, or completed. */
export function buildOutcome(run: RunSnapshot, nextPossibleAction: string): Outcome {
  const base = {
    completed_steps: run.completedSteps,
    failures: run.failures,
    recoveries: run.recoveries,
    plan: run.plan,
    ...(run.blocked.length ? { blocked: run.blocked } : {}),
    ...(run.needsReconciliation.length ? { needs_reconciliation: run.needsReconciliation } : {}),
    ...(run.compensation
      ? {
          compensated: run.compensation.compensated,
          failed: run.compensation.failed,
          not_compensable: run.compensation.notCompensable,
          ...(run.compensation.forgotten ? { forgotten: run.compensation.forgotten } : {}),
        }
      : {}),
  };
  const saved = describeRecoveries(run.recoveries) + describeCompensation(run);
  if (run.terminal) {
    const { status, reason, tool } = run.terminal;
    const blocked = status === 'BLOCKED';
    return {
      status,
      reason,
      summary: `${
        blocked
          ? `Blocked: ${tool} was denied access; every route to the denied resource stays closed.`
          : `Stopped at ${tool}: ${reason}.`
      }${saved}${describeDoubt(run)}`,
      next_possible_action: blocked
        ? nextPossibleAction
        : reason === 'RECONCILE_BY_HAND' || reason === 'RECONCILE_FAILED'
          ? 'reconcile the in-doubt write by hand before retrying'
          : 'inspect the failure trace and fix the cause before re-running',
      ...base,
    };
  }
  // Once each: two tools refused on one resource lack the same evidence.
  const missing = [
    ...new Set([
      ...run.degraded.map((d) => d.missing),
      ...run.blocked.map((b) => `${b.resource} (blocked)`),
      ...run.unresolved.map((tool) => `${tool} result`),
    ]),
  ];
  if (missing.length > 0 || run.needsReconciliation.length > 0) {
    return {
      status: 'PARTIAL_RESULT',
      reason: run.degraded.length
        ? 'DEGRADED'
        : run.blocked.length
          ? 'PARTLY_BLOCKED'
          : run.needsReconciliation.length
            ? 'NEEDS_RECONCILIATION'
            : 'UNRESOLVED_FAILURES',
      summary: `Finished without: ${[...missing, ...run.needsReconciliation.map((n) => `${n.tool} (in doubt)`)].join(', ')}.${saved}${describeDoubt(run)}`,
      missing_evidence: missing,
      confidence: 'LOW',
      ...base,
    };
  }
  return {
    status: 'COMPLETED',
    summary: `${
      run.failures.length === 0
        ? 'Every tool call completed.'
        : `Completed: the run went on past ${run.failures.length} failed ${
            run.failures.length === 1 ? 'call' : 'calls'
          } the model was told about (see failures).`
    }${saved}`,
    ...base,
  };
}

const verbs: Record<string, string> = {
  RETRY: 'retried',
  RECONCILE: 'reconciled',
  REPLAY: 'replayed behind its idempotency key',
  FALLBACK: 'answered by its fallback',
};

/** " recourse recovered 2 calls: refund_payment (TIMEOUT, reconciled), ..." */
function describeRecoveries(recoveries: readonly Recovery[]): string {
  if (recoveries.length === 0) return '';
  const shown = recoveries
    .slice(0, 5)
    .map((r) => `${r.tool} (${r.code}, ${verbs[r.action] ?? r.action.toLowerCase()})`);
  const more = recoveries.length > 5 ? ` and ${recoveries.length - 5} more` : '';
  const calls = recoveries.length === 1 ? 'call' : 'calls';
  return ` recourse recovered ${recoveries.length} failed ${calls}: ${shown.join(', ')}${more}.`;
}

function describeCompensation(run: RunSnapshot): string {
  const done = run.compensation;
  if (!done) return '';
  // The forgotten writes close the `failed` list: they were never tried.
  const tried = done.failed.slice(0, done.failed.length - done.forgotten);
  const failedOnly = tried.filter((tool) => !done.inDoubt.includes(tool));
  const forgotten = [...new Set(done.failed.slice(tried.length))];
  const parts = [
    done.compensated.length ? `undone: ${names(done.compensated)}` : '',
    failedOnly.length ? `not undone (failed): ${names(failedOnly)}` : '',
    done.inDoubt.length ? `in doubt, not re-sent: ${names(done.inDoubt)}` : '',
    done.forgotten
      ? `not undone, older than the newest ${maxUndoableWrites.toLocaleString('en-US')} writes the run keeps: ${done.forgotten} of ${names(forgotten)} (undo them by hand)`
      : '',
    done.notCompensable.length ? `no compensation: ${names(done.notCompensable)}` : '',
  ].filter(Boolean);
  return parts.length ? ` Compensation — ${parts.join('; ')}.` : '';
}

/** Tool names for a sentence: a long run's lists are shortened. */
function names(tools: readonly string[]): string {
  if (tools.length <= 10) return tools.join(', ');
  return `${tools.slice(0, 10).join(', ')} and ${tools.length - 10} more`;
}

function describeDoubt(run: RunSnapshot): string {
  if (run.needsReconciliation.length === 0) return '';
  const tools = [...new Set(run.needsReconciliation.map((n) => n.tool))].join(', ');
  return ` In doubt and not re-sent: ${tools} (see needs_reconciliation).`;
}
