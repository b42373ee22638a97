import type { Classification, Decision } from '../types.js';
import type { Outcome } from './outcome.js';

interface Terminal {
  status: 'BLOCKED' | 'FAILED';
  reason: string;
  tool: string;
}

/** What one run has done so far, in this process: the material of its Outcome. */
export class RunState {
  readonly completedSteps: string[] = [];
  readonly failures: Outcome['failures'] = [];
  readonly degraded: { tool: string; missing: string }[] = [];
  readonly blocked: NonNullable<Outcome['blocked']> = [];
  readonly needsReconciliation: NonNullable<Outcome['needs_reconciliation']> = [];
  private readonly unresolved = new Set<string>();
  terminal: Terminal | undefined;
  guidance: string | undefined;

  constructor(private readonly nextPossibleAction: string) {}

  recordSuccess(tool: string): void {
    this.completedSteps.push(tool);
    this.unresolved.delete(tool);
  }

  recordFailure(
    tool: string,
    classification: Classification,
    decision: Decision,
    guidance: string,
  ): void {
    this.failures.push({
      tool,
      failure_class: classification.failureClass,
      code: decision.action === 'ABORT' ? decision.code : classification.code,
      recovery: decision.action,
    });
    this.unresolved.add(tool);
    this.guidance = guidance;
  }

  recordDegraded(tool: string, missing: string): void {
    this.degraded.push({ tool, missing });
    this.completedSteps.push(`${tool} (degraded)`);
    this.unresolved.delete(tool);
  }

  /** Marks the run terminal; the first cause wins. Returns true when this call stopped it. */
  stop(terminal: Terminal): boolean {
    if (this.terminal) return false;
    this.terminal = terminal;
    return true;
  }

  outcome(): Outcome {
    const base = {
      completed_steps: [...this.completedSteps],
      failures: [...this.failures],
      ...(this.blocked.length ? { blocked: [...this.blocked] } : {}),
      ...(this.needsReconciliation.length
        ? { needs_reconciliation: [...this.needsReconciliation] }
        : {}),
    };
    if (this.terminal) {
      const { status, reason, tool } = this.terminal;
      return {
        status,
        reason,
        summary:
          status === 'BLOCKED'
            ? `Blocked: ${tool} was denied access; every route to the denied resource stays closed.`
            : `Stopped at ${tool}: ${reason}.`,
        next_possible_action:
          status === 'BLOCKED'
            ? this.nextPossibleAction
            : reason === 'RECONCILE_BY_HAND'
              ? 'reconcile the in-doubt write by hand before retrying'
              : 'inspect the failure trace and fix the cause before re-running',
        ...base,
      };
    }
    const missing = [
      ...this.degraded.map((d) => d.missing),
      ...this.blocked.map((b) => `${b.resource} (blocked)`),
      ...[...this.unresolved].map((tool) => `${tool} result`),
    ];
    if (missing.length > 0) {
      return {
        status: 'PARTIAL_RESULT',
        reason: this.degraded.length
          ? 'DEGRADED'
          : this.blocked.length
            ? 'PARTLY_BLOCKED'
            : 'UNRESOLVED_FAILURES',
        summary: `Finished without: ${missing.join(', ')}.`,
        missing_evidence: missing,
        confidence: 'LOW',
        ...base,
      };
    }
    return { status: 'COMPLETED', summary: 'Every tool call completed.', ...base };
  }
}
