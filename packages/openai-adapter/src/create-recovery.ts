import type { CompensationReport, Outcome } from '@recourse/core';
import {
  createAdapterRuntime,
  optionChecks,
  type RecoveryOptions,
  type RecoveryRuntime,
  type ToolPolicy,
  trackWrappedTools,
  validateRecoveryOptions,
} from '@recourse/core/adapter';
import type OpenAI from 'openai';
import type { ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { type ChatTurnResult, executeChatToolCalls } from './chat/execute-chat-tool-calls.js';
import { type RunChatParams, type RunChatResult, runChat } from './chat/run-chat.js';
import { type AnyRecoveryToolSet, defineTools } from './define-tools.js';
import type { ExecuteToolCallsOptions } from './execute-tool-calls.js';
import {
  executeResponseCalls,
  type ResponseTurnResult,
} from './responses/execute-response-calls.js';
import {
  type RunResponsesParams,
  type RunResponsesResult,
  runResponses,
} from './responses/run-responses.js';
import { toolErrorRecognisers } from './tool-errors.js';

/** One run's recovery for the official OpenAI SDK. Create one per run. */
export interface OpenAIRecovery {
  /** Tool definitions for both APIs, with their executors. */
  tools: typeof defineTools;
  /** A complete loop on `client.responses.create`, plain or streaming. */
  runResponses(
    client: Pick<OpenAI, 'responses'>,
    params: RunResponsesParams,
  ): Promise<RunResponsesResult>;
  /** A complete loop on `client.chat.completions.create`, plain or streaming. */
  runChat(client: Pick<OpenAI, 'chat'>, params: RunChatParams): Promise<RunChatResult>;
  /** Your own Chat loop: the tool messages to append for one assistant message. */
  executeChatToolCalls(
    tools: AnyRecoveryToolSet,
    message: { tool_calls?: readonly ChatCompletionMessageToolCall[] | null | undefined },
    options?: ExecuteToolCallsOptions,
  ): Promise<ChatTurnResult>;
  /** Your own Responses loop: the `function_call_output` items for one response's output. */
  executeResponseCalls(
    tools: AnyRecoveryToolSet,
    output: readonly ResponseOutputItem[],
    options?: ExecuteToolCallsOptions,
  ): Promise<ResponseTurnResult>;
  /** True once the run reached a terminal state: stop asking the model. */
  isStopped(): boolean;
  outcome(): Outcome;
  /** Undoes the run's completed writes that have a `compensate`, newest first, each at most once. */
  compensate(): Promise<CompensationReport>;
  /**
   * The run is over: stops watching the ledger for its facts (see `RecoveryRuntime.close`).
   * Optional: a recovery that is dropped lets go when it is garbage collected.
   */
  close(): void;
  runtime: RecoveryRuntime;
}

/**
 * Takes the same options as the AI SDK adapter. Create the OpenAI client with
 * `maxRetries: 0`: recourse retries model requests itself, under the run's budget, and
 * the SDK's own retries would multiply with them.
 */
export interface OpenAIRecoveryOptions extends RecoveryOptions {
  /**
   * A one-line console warning when `tools()` defines no tool for a policy's name. Default
   * true; the `policy.unused` event is emitted either way. Checked right after the `tools()`
   * calls of the current job (a microtask later), once per policy.
   */
  warn?: boolean | undefined;
}

export function createRecovery(options: OpenAIRecoveryOptions): OpenAIRecovery {
  validateRecoveryOptions(options, { warn: optionChecks.bool });
  const { warn = true, ...core } = options;
  const runtime = createAdapterRuntime(core, { recognisers: toolErrorRecognisers });
  const defined = trackWrappedTools(runtime, { warn, verb: 'defined' });
  const tools = ((definitions: Parameters<typeof defineTools>[0]) => {
    const set = defineTools(definitions);
    for (const [name, definition] of Object.entries(definitions)) {
      const policy = (definition as { policy?: ToolPolicy } | undefined)?.policy;
      if (policy !== undefined) runtime.declareTool(name, policy, 'own');
    }
    defined.add(set.names);
    return set;
  }) as typeof defineTools;
  return {
    tools,
    runResponses: (client, params) => runResponses(runtime, client, params),
    runChat: (client, params) => runChat(runtime, client, params),
    executeChatToolCalls: (tools, message, callOptions) =>
      executeChatToolCalls(runtime, tools, message, callOptions),
    executeResponseCalls: (tools, output, callOptions) =>
      executeResponseCalls(runtime, tools, output, callOptions),
    isStopped: () => runtime.isStopped(),
    outcome: () => runtime.outcome(),
    compensate: () => runtime.compensate(),
    close: () => runtime.close(),
    runtime,
  };
}
