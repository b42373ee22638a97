// What an application using this adapter needs from the core, so that installing the
// adapter is enough (`@recourse/core` comes along as its dependency).
export {
  type CallContext,
  type CheckFailure,
  type Classification,
  type CompensationReport,
  type ConsoleTraceOptions,
  callContext,
  createConsoleTrace,
  type Decision,
  type Denial,
  type EventListener,
  type FailureClass,
  type HttpCapability,
  httpCapability,
  httpResource,
  InvalidOptionsError,
  type JsonValue,
  type KubernetesTarget,
  kubernetesResource,
  type Ledger,
  type LedgerOptions,
  type LedgerRecord,
  MemoryLedger,
  type Outcome,
  type PathResourceOptions,
  type PostgresTarget,
  pathResource,
  postgresResource,
  type ReconcileResult,
  RecourseError,
  type RecoveryAction,
  type RecoveryContract,
  type RecoveryEvent,
  type RecoveryEventType,
  type RecoveryOptions,
  type RetryOptions,
  type ShellResourcesOptions,
  s3Resource,
  shellResources,
  sshResource,
  type ToolCallInfo,
  type ToolPolicy,
  urlResource,
} from '@recourse/core';
export {
  type AiSdkRecovery,
  type AiSdkRecoveryOptions,
  createRecovery,
  type ToolPolicies,
} from './create-recovery.js';
export { isMcpErrorResult, McpToolError, policyFromAnnotations } from './mcp-result.js';
export { type ApprovalAnswerPart, readApprovalAnswers } from './tool-approval.js';
export type { ToolApprovalOptions } from './tool-approval-function.js';
export { ToolCallFailedError } from './tool-call-failed-error.js';
export { isToolCallFailure, toolCallFailureOf } from './tool-failure-result.js';
export type { FailureMode } from './wrap-tool.js';
