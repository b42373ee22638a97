import type { CompletedWrite } from './run-actions.js';
import { trim } from './run-lists.js';

/**
 * How many completed writes with a compensation one run keeps, newest first, with the input
 * and result their undo needs. Apart from every other list (1,000), so reads and writes
 * that cannot be undone never push an undo out; bounded, because a long-lived run (a chat
 * session) must not grow without end. Past it, the oldest are forgotten — and counted, so
 * `compensate()` reports them as not undone instead of leaving them out.
 */
export const maxUndoableWrites = 10_000;
const maxOtherWrites = 1_000;

/** What `compensate()` works from, oldest first. */
export interface WritesToCompensate {
  /** Writes with an undo still held. */
  undoable: CompletedWrite[];
  /** Tool names of the writes without one, each write once (older ones grouped by tool). */
  notCompensable: string[];
  /** Tool names of writes with an undo the run no longer holds: not undone, never tried. */
  forgotten: string[];
}

/** The run's completed writes, each operation once: the material of `compensate()`. */
export class WriteHistory {
  readonly #undoable = new Map<string, CompletedWrite>();
  readonly #others = new Map<string, string>();
  // Per tool, the writes dropped from the two maps above: a count, bounded by the tools.
  readonly #forgotten = new Map<string, number>();
  readonly #othersDropped = new Map<string, number>();

  add(write: CompletedWrite): void {
    // An operation dropped and completed again (a duplicate answered from the ledger)
    // counts twice: reported as forgotten though it is held again, the safe direction.
    if (write.undo) {
      if (this.#undoable.has(write.key)) return;
      this.#undoable.set(write.key, write);
      trim(this.#undoable, maxUndoableWrites, (dropped) => count(this.#forgotten, dropped.tool));
    } else {
      if (this.#others.has(write.key)) return;
      this.#others.set(write.key, write.tool);
      trim(this.#others, maxOtherWrites, (tool) => count(this.#othersDropped, tool));
    }
  }

  list(): WritesToCompensate {
    return {
      undoable: [...this.#undoable.values()],
      notCompensable: [...expand(this.#othersDropped), ...this.#others.values()],
      forgotten: expand(this.#forgotten),
    };
  }
}

function count(counts: Map<string, number>, tool: string): void {
  counts.set(tool, (counts.get(tool) ?? 0) + 1);
}

/** Each tool's name once per write it counts, in the order the tools were first counted. */
function expand(counts: Map<string, number>): string[] {
  const names: string[] = [];
  for (const [tool, n] of counts) for (let i = 0; i < n; i++) names.push(tool);
  return names;
}
