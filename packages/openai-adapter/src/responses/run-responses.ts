import type { Outcome } from '@recourse/core';
import { type RecoveryRuntime, usableTools } from '@recourse/core/adapter';
import type OpenAI from 'openai';
import type {
  Response,
  ResponseCreateParamsBase,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import type { AnyRecoveryToolSet } from '../define-tools.js';
import { describeRequest } from '../describe-request.js';
import { defaultMaxSteps } from '../execute-tool-calls.js';
import { runToolCall, type ToolCallRecord } from '../run-tool-call.js';
import { functionCalls, toOutputItems, toPendingCall } from './execute-response-calls.js';
import { readResponseStream } from './read-response-stream.js';

export type RunResponsesParams = Omit<ResponseCreateParamsBase, 'tools' | 'stream'> & {
  /** The set from `recovery.tools(...)`. */
  tools: AnyRecoveryToolSet;
  stream?: boolean | null | undefined;
  /** Model requests at most. Default 8. */
  maxSteps?: number | undefined;
  signal?: AbortSignal | undefined;
};

export interface ResponsesStep {
  response: Response;
  calls: ToolCallRecord[];
}

export interface RunResponsesResult {
  /** The last response's output text. */
  text: string;
  outcome: Outcome;
  steps: ResponsesStep[];
  /** The whole conversation as an input list, every call answered. */
  input: ResponseInputItem[];
  response: Response | undefined;
}

/**
 * A complete tool loop on the Responses API, plain or streaming, through the policy.
 * The conversation is kept as an input list (every output item of a turn in order, then
 * its `function_call_output`s), so it also works with `store: false`; no
 * `previous_response_id` is used. Guidance after a failure goes into the next request's
 * `instructions`, after your own.
 */
export async function runResponses(
  runtime: RecoveryRuntime,
  client: Pick<OpenAI, 'responses'>,
  params: RunResponsesParams,
): Promise<RunResponsesResult> {
  const { tools, stream, maxSteps = defaultMaxSteps, signal, instructions, ...request } = params;
  const input: ResponseInputItem[] =
    typeof request.input === 'string'
      ? [{ role: 'user', content: request.input }]
      : [...(request.input ?? [])];
  const steps: ResponsesStep[] = [];
  let response: Response | undefined;
  let text = '';
  let guidance: string | undefined;
  const described = describeRequest(request.model, stream);
  for (let step = 1; step <= maxSteps && !runtime.isStopped(); step++) {
    const usable = activeTools(runtime, tools);
    const { tool_choice, parallel_tool_calls, ...rest } = request;
    const body = {
      ...rest,
      input: [...input],
      ...joinInstructions(instructions, guidance),
      // tool_choice and parallel_tool_calls only mean something while tools are left.
      ...(usable.length ? { tools: usable, tool_choice, parallel_tool_calls } : {}),
    };
    // The calls of this step's response, one turn: the runtime orders them (see `turn`).
    const turn = {};
    const answer = await runtime.callModel(
      async () => {
        if (!stream) {
          const value = await client.responses.create({ ...body, stream: false }, { signal });
          return { response: value, text: value.output_text ?? '', calls: undefined };
        }
        // Each call starts as its item completes, while the stream goes on, in order.
        const started: Promise<ToolCallRecord>[] = [];
        const events = await client.responses.create({ ...body, stream: true }, { signal });
        const onCall = (item: ResponseFunctionToolCall) => {
          started.push(runToolCall(runtime, tools, toPendingCall(item), signal, turn));
        };
        try {
          const read = await readResponseStream(events, onCall);
          return { ...read, calls: await Promise.all(started) };
        } catch (error) {
          // A broken stream: let the calls already started finish before the retry.
          await Promise.allSettled(started);
          throw error;
        }
      },
      signal,
      described,
    );
    if (!answer.ok) break;
    response = answer.value.response;
    text = answer.value.text;
    input.push(...(response.output as ResponseInputItem[]));
    const pending = functionCalls(response.output);
    if (pending.length === 0) {
      steps.push({ response, calls: [] });
      break;
    }
    // Answer every call of the final output, also any the stream did not announce.
    const { calls } = answer.value;
    const records = await Promise.all(
      pending.map(
        (call) =>
          calls?.find((record) => record.callId === call.callId) ??
          runToolCall(runtime, tools, call, signal, turn),
      ),
    );
    input.push(...toOutputItems(records));
    steps.push({ response, calls: records });
    guidance = runtime.takeGuidance();
    if (runtime.isStopped()) break;
  }
  return { text, outcome: runtime.outcome(), steps, input, response };
}

function joinInstructions(own: string | null | undefined, guidance: string | undefined) {
  const parts = [own, guidance].filter((part): part is string => Boolean(part));
  return parts.length ? { instructions: parts.join('\n\n') } : {};
}

/** The tools still usable: a denial removes the tools that could reach what was denied. */
function activeTools(runtime: RecoveryRuntime, tools: AnyRecoveryToolSet) {
  return usableTools(runtime, tools.responses, (tool) => tool.name);
}
