import type { Telemetry } from '../runtime/telemetry.js';
import {
  type Attributes,
  createInstruments,
  type OtelApi,
  spanKind,
  type TracerLike,
} from './otel-api.js';
import { OtelCallSpan } from './otel-call-span.js';
import { OtelModelSpan } from './otel-model-span.js';

export type { OtelApi, TracerLike } from './otel-api.js';

/**
 * One span per wrapped call, after the GenAI semantic conventions (`execute_tool {name}`,
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type`), plus
 * recourse's own attributes; one inference span per model request an adapter makes
 * through `runtime.callModel`. Both start in the active context, so a call nests under
 * the AI SDK's `execute_tool` span when that telemetry is on; the tool runs inside it.
 * Durations go to `gen_ai.execute_tool.duration` and `gen_ai.client.operation.duration`
 * when a meter provider is registered.
 *
 * With no tracer given and no SDK registered, `start` and `startModel` answer undefined
 * at the cost of two provider lookups: the call path builds nothing.
 */
export function createOtelTelemetry(api: OtelApi, tracer?: TracerLike | undefined): Telemetry {
  const instruments = createInstruments(api, tracer);
  const inContext = <T>(context: unknown, fn: () => T): T => api.context.with(context, fn);
  // A streamed model response runs its tool calls while it is read, so inside the model
  // span's context. Tool spans are siblings of inference spans (the AI SDK's telemetry
  // places them so too; an inference span is the request, not what the agent does with
  // it): a call started there is parented where the model request was.
  const outsideModel = new WeakMap<object, unknown>();

  return {
    start(runId, toolName, toolCallId) {
      const active = instruments.tracer();
      const durations = instruments.toolDurations();
      if (!active && !durations) return undefined;
      if (!active) return new OtelCallSpan(undefined, undefined, inContext, durations, toolName);
      let parent = api.context.active();
      const enclosing = api.trace.getSpan(parent);
      if (enclosing && outsideModel.has(enclosing)) parent = outsideModel.get(enclosing);
      const span = active.startSpan(
        `execute_tool ${toolName}`,
        {
          kind: spanKind.internal,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': toolName,
            'gen_ai.tool.call.id': toolCallId,
            'gen_ai.tool.type': 'function',
            'recourse.run_id': runId,
          },
        },
        parent,
      );
      return new OtelCallSpan(
        span,
        api.trace.setSpan(parent, span),
        inContext,
        durations,
        toolName,
      );
    },

    startModel(runId, request) {
      const active = instruments.tracer();
      const durations = instruments.modelDurations();
      if (!active && !durations) return undefined;
      const attributes = requestAttributes(request);
      if (!active) return new OtelModelSpan(undefined, undefined, inContext, durations, attributes);
      const parent = api.context.active();
      const operation = attributes['gen_ai.operation.name'];
      const model = attributes['gen_ai.request.model'];
      const span = active.startSpan(
        model === undefined ? `${operation}` : `${operation} ${model}`,
        {
          kind: spanKind.client,
          attributes: {
            ...attributes,
            ...(request?.stream === undefined ? {} : { 'gen_ai.request.stream': request.stream }),
            'recourse.run_id': runId,
          },
        },
        parent,
      );
      outsideModel.set(span, parent);
      const inSpan = api.trace.setSpan(parent, span);
      return new OtelModelSpan(span, inSpan, inContext, durations, attributes);
    },
  };
}

/** The request's attributes the metric may carry too (low cardinality: no run id). */
function requestAttributes(request: Parameters<Telemetry['startModel']>[1]): Attributes {
  const attributes: Attributes = { 'gen_ai.operation.name': text(request?.operation) ?? 'chat' };
  const provider = text(request?.provider);
  const model = text(request?.model);
  if (provider) attributes['gen_ai.provider.name'] = provider;
  if (model) attributes['gen_ai.request.model'] = model;
  return attributes;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
