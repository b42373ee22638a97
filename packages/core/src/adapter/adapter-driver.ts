import type { RecoveryOptions } from '../runtime/options/recovery-options.js';
import type { RecoveryRuntime } from '../runtime/recovery-runtime.js';

/** A tool of the adapter contract suite, independent of any SDK: the driver makes it the SDK's. */
export interface ContractTool {
  description: string;
  /** JSON Schema of the input: an object whose properties are all required strings. */
  inputSchema: {
    type: 'object';
    properties: Record<string, { type: 'string' }>;
    required: string[];
    additionalProperties: false;
  };
  /** Runs the tool once; `signal` is the one the SDK or recourse hands the tool. */
  execute(input: Record<string, string>, signal?: AbortSignal | undefined): Promise<unknown>;
}

/** One call the scripted model makes. */
export interface ContractCall {
  /** The call id the model gives it (`call_…`), unique in a run. */
  id: string;
  name: string;
  input: Record<string, string>;
}

/** What the model received in one `play`. */
export interface ContractPlay {
  /** The text the model was sent back for each call id it got an answer for. */
  answers: ReadonlyMap<string, string>;
  /** Model requests made (a stopped run makes no further one). */
  modelRequests: number;
}

/** One run of the adapter under test, with its tools wrapped. */
export interface AdapterContractRun {
  /** The run's runtime (approvals, outcome, stop). */
  readonly runtime: RecoveryRuntime;
  /**
   * Runs the agent loop once, the scripted model answering each request with the next
   * turn's calls (several calls in a turn are one model response) and, after the last
   * turn, with the text `done`. The loop ends there, or earlier when recourse stops it.
   * Called again, it is a new loop of the same run (the same ledger, runtime and tools).
   */
  play(turns: readonly (readonly ContractCall[])[]): Promise<ContractPlay>;
}

/** How the contract suite builds a run of one adapter. */
export interface AdapterContractDriver {
  /**
   * `options` are the adapter's `createRecovery` options (the core's), `tools` the tools to
   * wrap, by name. Called once per test.
   */
  start(options: RecoveryOptions, tools: Record<string, ContractTool>): AdapterContractRun;
}
