// What a proxy config (`.mjs`) and a program embedding the proxy need, in one import.
export * from '@recourse/core/agent';
export { policyFromAnnotations } from './annotations.js';
export {
  createRecoveryProxy,
  type RecoveryProxy,
  type RecoveryProxyOptions,
} from './create-proxy.js';
export type { ListenOptions, ProxyListener } from './listen-http.js';
export { defaultLedgerFile, openLedger } from './open-ledger.js';
export { type CallTool, idempotencyKeyMeta, ProxySession } from './proxy-session.js';
export type { CallToolResult } from './tool-result.js';
export { UpstreamClosedError, UpstreamJsonRpcError } from './upstream-errors.js';
export type { UpstreamSpec } from './upstream-link.js';
