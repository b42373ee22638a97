import type { Classifier } from '../classify/index.js';
import type { Outcome } from '../contract/outcome.js';
import type { AccessGrant, Ledger } from '../ledger/ledger.js';
import type { ApprovalAnswer, ApprovalCall, ApprovalRequest } from './access/approvals.js';
import type { BlockCheck } from './access/block-check.js';
import type { ToolCallFailure, ToolCallRequest, ToolCallResult } from './call/tool-call.js';
import type { ModelCallResult } from './model/call-model.js';
import type { ModelRequest } from './model/model-request.js';
import type { SdkFailure } from './model/sdk-failure.js';
import type { ToolPolicy } from './options/recovery-options.js';
import type { CompensationReport } from './run/compensate.js';

/** The SDK-independent engine both adapters drive. One per run. */
export interface RecoveryRuntime {
  readonly runId: string;
  readonly ledger: Ledger;
  /** Runs one tool call through scope, ledger, classification and policy. */
  execute(request: ToolCallRequest): Promise<ToolCallResult>;
  /** A failure the SDK reported without calling execute (invalid input, unknown tool). */
  recordFailure(request: SdkFailure): Promise<ToolCallFailure>;
  /**
   * A call that succeeded, whose result the adapter could not serialise for the model
   * (`error` is what JSON threw): told to the model as a failure. A write: the result was
   * not stored (`RESULT_NOT_STORED`, do not send again); a read: `RESULT_NOT_SERIALISABLE`.
   */
  recordUnsendableResult(request: SdkFailure): Promise<ToolCallFailure>;
  /** True once the run reached a terminal state: the loop should end. */
  isStopped(): boolean;
  /** Guidance for the model's next step after a failure (repair, re-observe), once. */
  takeGuidance(): string | undefined;
  /** Which of `toolNames` can no longer run because of a denial or a stop. */
  unusableTools(toolNames: readonly string[]): string[];
  /** The tool's policy as it applies: its own, its declared hints, then `defaultPolicy`. */
  policyFor(toolName: string): ToolPolicy;
  /**
   * A policy given when the tool is wrapped: `'hints'` (default; what a tool says of
   * itself, MCP annotations, below the user's own policy) or `'own'` (the user's, over
   * `policies[name]`). Checked like the options: a bad field throws `InvalidOptionsError`.
   */
  declareTool(toolName: string, policy: ToolPolicy, layer?: 'own' | 'hints'): void;
  /**
   * The framework of `toolName` hides its failures from recourse (it answers the model itself,
   * e.g. with a fixed sentence). Emits one `tool.failures-hidden` event per tool; true the first
   * time, so an adapter can warn once.
   */
  reportHiddenFailures(toolName: string, reason: string): boolean;
  /** The tools an adapter wrapped: policies naming no wrapped tool are reported (and returned). */
  registerTools(toolNames: readonly string[]): { tool: string; suggestion?: string }[];
  /**
   * A request to the model through the same classifier, backoff and retry budget.
   * `request` describes it for its tracing span (model, provider), when something records.
   */
  callModel<T>(
    fn: () => Promise<T>,
    signal?: AbortSignal | undefined,
    request?: ModelRequest | undefined,
  ): Promise<ModelCallResult<T>>;
  /**
   * The model loop failed outside recourse (the AI SDK's `generateText` threw once its own
   * retries were spent): the run ends FAILED with the error classified, `autoCompensate`
   * undoes the completed writes, and the outcome is returned. A run already stopped keeps
   * its own cause.
   */
  modelFailed(error: unknown): Promise<Outcome>;
  /** Classifies an error with the run's recognisers. */
  readonly classify: Classifier;
  outcome(): Outcome;
  /** The checks `execute` makes before running a call, without running or recording it. */
  checkBlocked(toolName: string, input: unknown): Promise<BlockCheck>;
  /** An operator opens `resource` (and what lies below it) for this run, on every worker. */
  grantAccess(grant: Omit<AccessGrant, 'at'>): Promise<void>;
  /** A blocked call an operator may open: the request to show, or undefined. */
  requestApproval(call: ApprovalCall): Promise<ApprovalRequest | undefined>;
  /** The operator's answer to `requestApproval`: approved grants what was escalated for that call. */
  resolveApproval(answer: ApprovalAnswer): Promise<{ granted: string[] }>;
  /** Undoes the run's completed writes, newest first, each at most once (see `compensate`). */
  compensate(): Promise<CompensationReport>;
  /**
   * The run is over: stops watching the ledger for the run's facts, the one thing a run
   * holds outside itself once its calls have settled (claims, lease renewals and turns are
   * let go as each call ends). Optional: a runtime that is dropped is let go of when it is
   * garbage collected. Idempotent; a call made after it still works, reading the run's
   * facts from the store before each check.
   */
  close(): void;
}
