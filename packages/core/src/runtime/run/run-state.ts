import type { Outcome, PlanVersions, Recovery } from '../../contract/outcome.js';
import type { BlockedEntry, RunAction, Terminal } from './run-actions.js';
import { answerEscalation, blockedKey, degradedKey, push, remember, trim } from './run-lists.js';
import { WriteHistory, type WritesToCompensate } from './write-history.js';

export type { BlockedEntry, CompletedWrite, RunAction, Terminal } from './run-actions.js';

/**
 * What one run has done so far, in this process: the material of its Outcome. Read it
 * through the getters; change it only with `dispatch`, so every change is one of the
 * actions above, made in one place.
 */
export class RunState {
  readonly #completed = new Map<string, string>();
  #failures: Outcome['failures'] = [];
  #recoveries: Recovery[] = [];
  // Keyed by what the entry says: a second refusal of the same tool on the same resource
  // (or a second fallback of the same tool) says nothing new, so it is listed once.
  readonly #degraded = new Map<string, { tool: string; missing: string }>();
  #blocked = new Map<string, BlockedEntry>();
  #needsReconciliation = new Map<string, { tool: string; idempotency_key: string; code: string }>();
  #unresolved = new Set<string>();
  #terminal: Terminal | undefined;
  #guidance: string | undefined;
  #plan: PlanVersions = { version: 1, history: [] };
  #compensation:
    | {
        compensated: string[];
        failed: string[];
        notCompensable: string[];
        inDoubt: string[];
        forgotten: number;
      }
    | undefined;
  readonly #writes = new WriteHistory();

  get terminal(): Terminal | undefined {
    return this.#terminal;
  }
  get guidance(): string | undefined {
    return this.#guidance;
  }
  get planVersion(): number {
    return this.#plan.version;
  }
  get blocked(): readonly BlockedEntry[] {
    return [...this.#blocked.values()];
  }
  /** The run's completed writes, oldest first, each operation once; those dropped, counted. */
  get writes(): WritesToCompensate {
    return this.#writes.list();
  }

  /** True when `tool` already counts as completed (a read, or this operation of a write). */
  hasCompleted(id: string): boolean {
    return this.#completed.has(id);
  }

  dispatch(action: RunAction): void {
    switch (action.type) {
      case 'succeeded':
        this.#complete(action.operation, action.tool, action.tool);
        if (action.recovery) push(this.#recoveries, action.recovery);
        return;
      case 'degraded':
        remember(this.#degraded, { tool: action.tool, missing: action.missing }, degradedKey);
        this.#complete(`degraded:${action.tool}`, `${action.tool} (degraded)`, action.tool);
        if (action.recovery) push(this.#recoveries, action.recovery);
        return;
      case 'failed': {
        const { tool, classification, decision } = action;
        push(this.#failures, {
          tool,
          failure_class: classification.failureClass,
          code: decision.action === 'ABORT' ? decision.code : classification.code,
          recovery: decision.action,
        });
        // A failure answered by a new plan is not missing from the result, the plan moved on;
        // a conflict or a quarantined operation is: it never happened.
        if (decision.code !== 'REPLAN') this.#unresolved.add(tool);
        if (action.guidance) this.#guidance = action.guidance;
        if (action.inDoubt) {
          this.#needsReconciliation.set(action.inDoubt.key, {
            tool,
            idempotency_key: action.inDoubt.key,
            code: action.inDoubt.code,
          });
        }
        return;
      }
      case 'blocked':
        remember(this.#blocked, action.entry, blockedKey);
        if (action.guidance !== undefined) this.#guidance = action.guidance;
        return;
      case 'escalated':
        for (const entry of action.entries) remember(this.#blocked, entry, blockedKey);
        return;
      case 'escalation.answered':
        this.#blocked = answerEscalation(this.#blocked, action);
        if (action.guidance !== undefined) this.#guidance = action.guidance;
        return;
      case 'stopped':
        this.#terminal ??= action.terminal;
        return;
      case 'replanned':
        push(this.#plan.history, {
          version: this.#plan.version,
          invalidated_by: { tool: action.tool, code: action.code, observation: action.observation },
        });
        this.#plan.version += 1;
        return;
      case 'guidance.taken':
        this.#guidance = undefined;
        return;
      case 'write.completed':
        this.#writes.add(action.write);
        return;
      case 'compensated':
        this.#compensation = {
          compensated: action.compensated,
          failed: action.failed,
          notCompensable: action.notCompensable,
          inDoubt: action.inDoubt.map((undo) => undo.tool),
          forgotten: action.forgotten,
        };
        for (const undo of action.inDoubt) {
          this.#needsReconciliation.set(undo.key, {
            tool: `${undo.tool}.compensate`,
            idempotency_key: undo.key,
            code: undo.code,
          });
        }
        return;
    }
  }

  /** A copy of everything, for the outcome. */
  snapshot() {
    return {
      completedSteps: [...this.#completed.values()],
      failures: [...this.#failures],
      recoveries: [...this.#recoveries],
      degraded: [...this.#degraded.values()],
      blocked: [...this.#blocked.values()],
      needsReconciliation: [...this.#needsReconciliation.values()],
      unresolved: [...this.#unresolved],
      terminal: this.#terminal,
      plan: {
        version: this.#plan.version,
        history: this.#plan.history.map((entry) => ({
          version: entry.version,
          invalidated_by: { ...entry.invalidated_by },
        })),
      },
      compensation: this.#compensation,
    };
  }

  #complete(id: string, label: string, tool: string): void {
    if (!this.#completed.has(id)) {
      this.#completed.set(id, label);
      trim(this.#completed);
    }
    if (this.#unresolved.size > 0) this.#unresolved.delete(tool);
  }
}

export type RunSnapshot = ReturnType<RunState['snapshot']>;
