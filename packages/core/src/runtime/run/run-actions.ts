import type { Recovery } from '../../contract/outcome.js';
import type { Classification, Decision } from '../../types.js';

export interface Terminal {
  status: 'BLOCKED' | 'FAILED';
  reason: string;
  tool: string;
}

export interface BlockedEntry {
  tool: string;
  resource: string;
  reason: string;
}

/** Everything that changes the run's state. `dispatch` is the only way to change it. */
export type RunAction =
  | {
      type: 'succeeded';
      tool: string;
      /** What counts once in `completed_steps`: a write's key, a read tool's step id. */
      operation: string;
      recovery?: Recovery | undefined;
    }
  | { type: 'degraded'; tool: string; missing: string; recovery?: Recovery | undefined }
  | {
      type: 'failed';
      tool: string;
      classification: Classification;
      decision: Decision;
      guidance?: string | undefined;
      /** A terminal failure of a write in doubt: it needs a person. */
      inDoubt?: { key: string; code: string } | undefined;
    }
  | { type: 'blocked'; entry: BlockedEntry; guidance?: string | undefined }
  | { type: 'escalated'; entries: BlockedEntry[] }
  | {
      type: 'escalation.answered';
      tool: string;
      resources: string[];
      declined: boolean;
      guidance?: string | undefined;
    }
  | { type: 'stopped'; terminal: Terminal }
  | { type: 'replanned'; tool: string; code: string; observation: string }
  | { type: 'guidance.taken' }
  | { type: 'write.completed'; write: CompletedWrite }
  | {
      type: 'compensated';
      compensated: string[];
      failed: string[];
      notCompensable: string[];
      /** Undos that may have landed and were not re-sent: a person must look. */
      inDoubt: UndoInDoubt[];
      /** Writes with a compensation the run no longer held: not undone (also in `failed`). */
      forgotten: number;
    };

/** An undo whose outcome is unknown (a lost response, a crash mid-undo): not re-sent. */
export interface UndoInDoubt {
  tool: string;
  key: string;
  code: string;
}

/** A write the run completed: what `compensate()` may undo, newest last. */
export interface CompletedWrite {
  tool: string;
  key: string;
  /** Kept only when the tool has a `compensate` function. */
  undo?: { input: unknown; result: unknown } | undefined;
}
