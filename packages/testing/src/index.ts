export { callService } from './call-service.js';
export { createCiService } from './ci-service.js';
export { type HostileErrorText, hostileErrorTexts } from './hostile-error-texts.js';
export { hostileThrownValues, revokedProxy } from './hostile-thrown-values.js';
export type { HttpErrorOptions, StreamErrorOptions } from './http-error.js';
export { describeError, httpError, streamError } from './http-error.js';
export type { ProviderApi, ProviderRequest, ToolResult } from './provider-request.js';
export type { ProviderServer, ProviderServerOptions } from './provider-server.js';
export { startProviderServer } from './provider-server.js';
export type { ScriptedProviderServer } from './provider-server-hooks.js';
export { scriptedProviderServer } from './provider-server-hooks.js';
export type {
  ScriptedErrorData,
  ScriptedHttpError,
  ScriptedStreamError,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedTurnPart,
  ScriptedUsage,
  ScriptStep,
  ToolCallOptions,
  TurnOptions,
} from './script-steps.js';
export { text, toolCall, turn } from './script-steps.js';
export type {
  ScriptEntry,
  ScriptedProvider,
  ScriptedProviderOptions,
} from './scripted-provider.js';
export { createScriptedProvider, defaultBaseURL } from './scripted-provider.js';
export { serveProvider } from './serve-provider.js';
