import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { callContext, type RecoveryOptions, type ToolPolicy } from '@recourse/core';
import { McpToolError, mcpErrorText } from '@recourse/core/adapter';
import { type ListedTool, policyFromAnnotations } from './annotations.js';
import { errorResponse, isNotification, isRequest, resultResponse } from './jsonrpc.js';
import { SessionRun } from './session-run.js';
import { contractResult, successResult } from './tool-result.js';
import { UpstreamLink as Link, type UpstreamLink, type UpstreamSpec } from './upstream-link.js';

/** The `_meta` key under which each call's idempotency key travels upstream. */
export const idempotencyKeyMeta = 'io.recourse/idempotency-key';

/** Calls a tool of the same upstream directly (no recourse around it): for `reconcile`. */
export type CallTool = (name: string, args?: Record<string, unknown>) => Promise<unknown>;

export interface ProxySessionOptions {
  downstream: Transport;
  upstream: UpstreamSpec;
  /** The run's options; `policies` may use `callTool` in `reconcile` and `fallback`. */
  recovery: RecoveryOptions;
  report: (line: string) => void;
  upstreamStderr?: 'inherit' | 'ignore' | undefined;
  onClose?: (() => void) | undefined;
}

interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * One client session: every message is forwarded as it came, in both directions, except
 * `tools/call`, which goes through the run's recourse runtime and reaches the upstream
 * as the proxy's own request, with the idempotency key in its `_meta`.
 */
export class ProxySession {
  readonly link: UpstreamLink;
  readonly run: SessionRun;
  readonly #options: ProxySessionOptions;
  readonly #downstream: Transport;
  readonly #calls = new Map<RequestId, AbortController>();
  readonly #toolLists = new Set<RequestId>();
  readonly #progressOwners = new Map<string | number, RequestId>();
  /** The client's requests not yet answered, oldest first. */
  readonly #open = new Set<RequestId>();
  #hints: Promise<void> | undefined;
  #reportedPolicies = false;
  #authorization: string | undefined;
  #closed = false;

  constructor(options: ProxySessionOptions) {
    this.#options = options;
    this.#downstream = options.downstream;
    const clock = options.recovery.clock;
    this.link = new Link({
      upstream: options.upstream,
      deliver: (message) => this.#toClient(message),
      report: options.report,
      now: () => (clock ? clock.now() : Date.now()),
      passHeaders: () =>
        this.#authorization === undefined ? undefined : { authorization: this.#authorization },
      stderr: options.upstreamStderr,
    });
    this.run = new SessionRun({
      ...options.recovery,
      policies: withCallTool(options.recovery.policies, (name, args) => this.#callTool(name, args)),
    });
  }

  async start(): Promise<void> {
    this.#downstream.onmessage = (message, extra) => this.#fromClient(message, extra);
    this.#downstream.onclose = () => void this.close();
    this.#downstream.onerror = () => undefined;
    await this.#downstream.start();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const controller of this.#calls.values()) controller.abort();
    await this.link.close();
    await this.#downstream.close().catch(() => undefined);
    this.#options.onClose?.();
  }

  #fromClient(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const authorization = extra?.requestInfo?.headers?.authorization;
    if (typeof authorization === 'string') this.#authorization = authorization;
    if (isRequest(message)) {
      this.#open.add(message.id);
      if (message.method === 'tools/call') {
        void this.#toolCall(message);
        return;
      }
      if (message.method === 'tools/list') this.#toolLists.add(message.id);
      const token = (message.params?._meta as { progressToken?: unknown } | undefined)
        ?.progressToken;
      if (typeof token === 'string' || typeof token === 'number') {
        this.#progressOwners.set(token, message.id);
      }
    } else if (isNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const call = requestId === undefined ? undefined : this.#calls.get(requestId);
      if (requestId !== undefined) this.#open.delete(requestId);
      if (call) {
        // The proxy's own request upstream is cancelled by the runtime for a read; a write
        // already sent is still awaited and recorded (the client may ask again).
        call.abort(new Error('cancelled by the client'));
        return;
      }
    }
    void this.link.forward(message);
  }

  #toClient(message: JSONRPCMessage): void {
    let relatedRequestId: RequestId | undefined;
    if ('id' in message && !('method' in message) && message.id !== undefined) {
      if (this.#toolLists.delete(message.id) && 'result' in message) {
        this.#learn((message.result as { tools?: ListedTool[] }).tools ?? []);
      }
    } else if (isNotification(message)) {
      if (message.method === 'notifications/progress') {
        const token = (message.params as { progressToken?: string | number }).progressToken;
        relatedRequestId = token === undefined ? undefined : this.#progressOwners.get(token);
      } else if (message.method === 'notifications/tools/list_changed') {
        this.#hints = undefined;
      }
    }
    if (relatedRequestId === undefined && 'method' in message) {
      // What the upstream says or asks while a request is open (a log line, a sampling or
      // elicitation request during a call) goes on that request's HTTP stream: the upstream's
      // transport does not say which request it belongs to; the newest open one is the guess.
      relatedRequestId = [...this.#open].at(-1);
    }
    void this.#send(message, relatedRequestId);
  }

  async #send(message: JSONRPCMessage, relatedRequestId?: RequestId): Promise<void> {
    if (this.#closed) return;
    if ('id' in message && !('method' in message)) {
      if (message.id !== undefined) this.#open.delete(message.id);
      for (const [token, owner] of this.#progressOwners) {
        if (owner === message.id) this.#progressOwners.delete(token);
      }
    }
    await this.#downstream
      .send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
      .catch(() => undefined);
  }

  async #toolCall(request: JSONRPCRequest): Promise<void> {
    const params = (request.params ?? {}) as ToolCallParams;
    const controller = new AbortController();
    this.#calls.set(request.id, controller);
    const token = params._meta?.progressToken;
    if (typeof token === 'string' || typeof token === 'number') {
      this.#progressOwners.set(token, request.id);
    }
    try {
      await this.#ensureHints();
      const runtime = this.run.runtime;
      const read = runtime.policyFor(params.name).sideEffects === false;
      const result = await runtime.execute({
        toolName: params.name,
        toolCallId: String(request.id),
        input: params.arguments ?? {},
        // A read is cancelled upstream with the client's request; a write is not forgotten.
        signal: read ? controller.signal : undefined,
        execute: (_input, signal) => this.#callUpstream(params, read ? signal : undefined),
      });
      if (controller.signal.aborted) return;
      const answer = result.ok ? successResult(result) : contractResult(result.contract);
      await this.#send(resultResponse(request.id, answer));
    } catch (error) {
      if (controller.signal.aborted) return;
      await this.#send(errorResponse(request.id, -32603, messageOf(error)));
    } finally {
      this.#calls.delete(request.id);
    }
  }

  async #callUpstream(
    params: ToolCallParams,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const _meta = { ...params._meta, [idempotencyKeyMeta]: callContext().idempotencyKey };
    const result = await this.link.request('tools/call', { ...params, _meta }, signal);
    if (result.isError === true) throw new McpToolError(mcpErrorText(result), result);
    return result;
  }

  #callTool: CallTool = async (name, args) => {
    const result = await this.link.request('tools/call', {
      name,
      ...(args === undefined ? {} : { arguments: args }),
    });
    if (result.isError === true) throw new McpToolError(mcpErrorText(result), result);
    return result;
  };

  /** The tools' annotations, asked for once when a call comes before any `tools/list`. */
  #ensureHints(): Promise<void> {
    this.#hints ??= this.#listTools().catch(() => undefined);
    return this.#hints;
  }

  async #listTools(): Promise<void> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.link.request(
        'tools/list',
        cursor === undefined ? undefined : { cursor },
      );
      tools.push(...((page.tools as ListedTool[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    this.#learn(tools);
  }

  #learn(tools: readonly ListedTool[]): void {
    this.#hints ??= Promise.resolve();
    const defaultPolicy = this.#options.recovery.defaultPolicy;
    for (const tool of tools) {
      const policy = policyFromAnnotations(tool, defaultPolicy);
      if (policy) this.run.declare(tool.name, policy);
    }
    if (this.#reportedPolicies) return;
    this.#reportedPolicies = true;
    for (const unused of this.run.runtime.registerTools(tools.map((tool) => tool.name))) {
      const meant = unused.suggestion ? ` (did you mean "${unused.suggestion}"?)` : '';
      this.#options.report(
        `policies.${unused.tool} names no tool of the upstream${meant}; that policy applies to nothing`,
      );
    }
  }
}

/** Each policy's `reconcile` and `fallback` also receive `callTool`. */
function withCallTool(
  policies: Record<string, ToolPolicy> | undefined,
  callTool: CallTool,
): Record<string, ToolPolicy> | undefined {
  if (!policies) return undefined;
  return Object.fromEntries(
    Object.entries(policies).map(([tool, policy]) => {
      const withTool = <Info extends object>(info: Info): Info => ({ ...info, callTool });
      const { reconcile, fallback } = policy;
      return [
        tool,
        {
          ...policy,
          ...(reconcile ? { reconcile: (input, info) => reconcile(input, withTool(info)) } : {}),
          ...(fallback ? { fallback: (input, info) => fallback(input, withTool(info)) } : {}),
        } satisfies ToolPolicy,
      ];
    }),
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
