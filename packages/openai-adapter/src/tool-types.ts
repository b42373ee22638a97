import type { CallContext, ToolPolicy } from '@recourse/core';

/** What `execute` receives besides its input: the call's context and the run's signal. */
export interface ToolExecuteContext extends CallContext {
  signal?: AbortSignal | undefined;
}

/** The input type a schema describes: zod 4 and zod 3 by their output type, else a record. */
export type InferToolInput<S> = S extends { _zod: { output: infer O } }
  ? O
  : S extends { _output: infer O }
    ? O
    : Record<string, unknown>;

/** One tool: a zod 4 / zod 3 schema or a plain JSON Schema, and its implementation. */
export interface RecoveryToolDefinition<S = unknown> {
  description?: string | undefined;
  inputSchema: S;
  execute: (input: InferToolInput<S>, context: ToolExecuteContext) => unknown;
  /** Default: strict when the schema allows it (see `checkStrictCompatible`); a given value is sent as is. */
  strict?: boolean | undefined;
  /**
   * The tool's recovery policy, typed by its input (over `createRecovery({ policies })`,
   * field by field).
   */
  policy?: ToolPolicy<InferToolInput<S>> | undefined;
}
