import type { Outcome } from '@recourse/core';
import { type RecoveryRuntime, usableTools } from '@recourse/core/adapter';
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { AnyRecoveryToolSet } from '../define-tools.js';
import { describeRequest } from '../describe-request.js';
import { defaultMaxSteps } from '../execute-tool-calls.js';
import type { ToolCallRecord } from '../run-tool-call.js';
import { executeChatToolCalls } from './execute-chat-tool-calls.js';
import { readChatStream } from './read-chat-stream.js';

export type RunChatParams = Omit<ChatCompletionCreateParamsBase, 'tools' | 'stream'> & {
  /** The set from `recovery.tools(...)`. */
  tools: AnyRecoveryToolSet;
  stream?: boolean | null | undefined;
  /** Model requests at most. Default 8. */
  maxSteps?: number | undefined;
  signal?: AbortSignal | undefined;
  /** The role of the guidance message appended after a failed turn. Default 'system'. */
  guidanceRole?: 'system' | 'developer' | undefined;
};

export interface ChatStep {
  completion: ChatCompletion;
  calls: ToolCallRecord[];
}

export interface RunChatResult {
  /** The last assistant text. */
  text: string;
  outcome: Outcome;
  steps: ChatStep[];
  /** The whole conversation, every tool call answered. */
  messages: ChatCompletionMessageParam[];
  completion: ChatCompletion | undefined;
}

/** A complete tool loop on Chat Completions, plain or streaming, through the policy. */
export async function runChat(
  runtime: RecoveryRuntime,
  client: Pick<OpenAI, 'chat'>,
  params: RunChatParams,
): Promise<RunChatResult> {
  const { tools, stream, maxSteps = defaultMaxSteps, signal, guidanceRole, ...request } = params;
  const messages: ChatCompletionMessageParam[] = [...request.messages];
  const steps: ChatStep[] = [];
  let completion: ChatCompletion | undefined;
  let text = '';
  const described = describeRequest(request.model, stream);
  for (let step = 1; step <= maxSteps && !runtime.isStopped(); step++) {
    const usable = activeTools(runtime, tools);
    const { tool_choice, parallel_tool_calls, ...rest } = request;
    const body = {
      ...rest,
      messages: [...messages],
      // tool_choice and parallel_tool_calls are only valid while tools are left.
      ...(usable.length ? { tools: usable, tool_choice, parallel_tool_calls } : {}),
    };
    const answer = await runtime.callModel(
      async () =>
        stream
          ? readChatStream(
              await client.chat.completions.create({ ...body, stream: true }, { signal }),
            )
          : client.chat.completions.create({ ...body, stream: false }, { signal }),
      signal,
      described,
    );
    if (!answer.ok) break;
    completion = answer.value;
    const message = completion.choices[0]?.message;
    text = message?.content ?? '';
    const toolCalls = message?.tool_calls ?? [];
    const assistant: ChatCompletionAssistantMessageParam = {
      role: 'assistant',
      content: message?.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    };
    messages.push(assistant);
    if (toolCalls.length === 0) {
      steps.push({ completion, calls: [] });
      break;
    }
    const turn = await executeChatToolCalls(runtime, tools, { tool_calls: toolCalls }, { signal });
    messages.push(...turn.messages);
    steps.push({ completion, calls: turn.records });
    if (turn.stop) break;
    // After the tool messages, so the model reads it next to the failure it is about.
    if (turn.guidance && step < maxSteps)
      messages.push({ role: guidanceRole ?? 'system', content: turn.guidance });
  }
  return { text, outcome: runtime.outcome(), steps, messages, completion };
}

/** The tools still usable: a denial removes the tools that could reach what was denied. */
function activeTools(runtime: RecoveryRuntime, tools: AnyRecoveryToolSet) {
  return usableTools(runtime, tools.chat, (tool) => tool.function.name);
}
