import {
  createRecoveryRuntime,
  type RecoveryOptions,
  type RecoveryRuntime,
  type ToolPolicy,
} from '@recourse/core';

/**
 * The run of one client session. A session lives for hours and is never stopped whole:
 * denials close only the denied resources (`onDenial: 'continue'`), a poison step only its
 * own repeats (`onPoison: 'replan'`). When another terminal ending (a write left in doubt,
 * attempts spent) stops the runtime, the next call gets a fresh runtime of the same run on
 * the same ledger, which still holds everything the run learned (denials, poison, writes
 * in doubt and completed writes), so those keep refusing their own repeats.
 */
export class SessionRun {
  readonly #options: RecoveryOptions;
  readonly #hints = new Map<string, ToolPolicy>();
  #runtime: RecoveryRuntime;

  constructor(options: RecoveryOptions) {
    this.#options = { ...options, onDenial: 'continue', onPoison: 'replan' };
    this.#runtime = createRecoveryRuntime(this.#options);
  }

  get runId(): string {
    return this.#options.runId;
  }

  /** The runtime for the next call. */
  get runtime(): RecoveryRuntime {
    if (this.#runtime.isStopped()) {
      this.#runtime = createRecoveryRuntime(this.#options);
      for (const [tool, policy] of this.#hints) this.#runtime.declareTool(tool, policy, 'hints');
    }
    return this.#runtime;
  }

  /** What a tool says of itself (its annotations), below the config's policy for it. */
  declare(tool: string, policy: ToolPolicy): void {
    this.#hints.set(tool, policy);
    this.#runtime.declareTool(tool, policy, 'hints');
  }
}
