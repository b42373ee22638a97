import type { MCPServer, Tool, ToolToFinalOutputFunction } from '@openai/agents';
import type { CompensationReport, Outcome } from '@recourse/core';
import {
  createAdapterRuntime,
  InvalidOptionsError,
  optionChecks,
  type RecoveryOptions,
  type RecoveryRuntime,
  type ToolPolicy,
  trackWrappedTools,
  validateRecoveryOptions,
} from '@recourse/core/adapter';
import { createEscalation } from './escalation.js';
import { hiddenFailureReason } from './hidden-failure.js';
import { createStopBehavior } from './stop-run.js';
import { wrapFunctionTool } from './wrap-function-tool.js';
import { wrapMcpServer } from './wrap-mcp-server.js';

export interface AgentsRecoveryOptions extends RecoveryOptions {
  /**
   * One console line when a policy names no wrapped tool, or a tool turns out to hide its
   * failures behind the SDK's default error function. Default true; the events
   * (`policy.unused`, `tool.failures-hidden`) are emitted either way.
   */
  warn?: boolean | undefined;
  /**
   * What a call blocked by a closed resource (a scope rule, an earlier denial) gets.
   * 'refuse' (default): a BLOCKED contract. 'approval': an approval request through the
   * SDK's `needsApproval`: the run pauses with an interruption; approving it grants the run
   * that resource (and what lies below it) before the call runs. Needs `onDenial:
   * 'continue'` for denials (with 'stop' the run is over) and a `resource` function on the
   * tool's policy (without one a call touches everything: never grantable).
   */
  escalation?: 'refuse' | 'approval' | undefined;
}

/** What `createRecovery` returns: wrap the agents' tools, give each agent the stop rule. */
export interface AgentsRecovery {
  readonly runId: string;
  /**
   * The tools an `Agent` is given (function tools, and the tools of its MCP servers from
   * `getAllMcpTools`), each function tool's calls running through recourse: same names,
   * schemas, approval rules and guardrails. Other tools (hosted, computer, shell) are
   * returned as they are. `policies` are per tool name, over `createRecovery({ policies })`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: tools of any context type
  tools<T extends readonly Tool<any>[]>(tools: T, policies?: Record<string, ToolPolicy>): T;
  /**
   * The MCP servers an `Agent` is given (`new Agent({ mcpServers: recovery.mcpServers([…]) })`),
   * each tool call of theirs running through recourse: the idempotency key sent upstream in
   * `_meta` (`io.recourse/idempotency-key`), an `isError: true` result classified as a
   * failure, the tools' MCP annotations as their default policies. `policies` are per tool
   * name, over the annotations and `createRecovery({ policies })`. Connect and close the
   * servers you passed in, as without recourse.
   */
  mcpServers<T extends readonly MCPServer[]>(servers: T, policies?: Record<string, ToolPolicy>): T;
  /**
   * `new Agent({ toolUseBehavior: recovery.toolUseBehavior })`: ends the run after the tool
   * calls of a turn once recourse stopped it (BLOCKED, poison, a write to reconcile by hand);
   * `finalOutput` is then the outcome's summary. Otherwise the model runs again, as with
   * the SDK's default `'run_llm_again'`. Give it to every agent of a run (handoffs too).
   */
  toolUseBehavior: ToolToFinalOutputFunction;
  /** True once the run reached a terminal state. */
  isStopped(): boolean;
  outcome(): Outcome;
  /** Undoes the run's completed writes that have a `compensate`, newest first, each at most once. */
  compensate(): Promise<CompensationReport>;
  /**
   * The run is over: stops watching the ledger for its facts (see `RecoveryRuntime.close`).
   * Optional: a recovery that is dropped lets go when it is garbage collected.
   */
  close(): void;
  /** The SDK-independent engine, for events, the ledger and lower-level use. */
  readonly runtime: RecoveryRuntime;
}

/**
 * The recovery layer for the OpenAI Agents SDK (`@openai/agents`). One per run; a run that
 * hands off between agents shares it. Options are checked here: a bad field throws
 * `InvalidOptionsError` naming it.
 */
export function createRecovery(options: AgentsRecoveryOptions): AgentsRecovery {
  validateRecoveryOptions(options, {
    warn: optionChecks.bool,
    escalation: optionChecks.oneOf('refuse', 'approval'),
  });
  const { warn = true, escalation: escalationMode = 'refuse', ...core } = options;
  const runtime = createAdapterRuntime(core as RecoveryOptions);
  const wrappedTools = trackWrappedTools(runtime, { warn });
  const escalation = escalationMode === 'approval' ? createEscalation(runtime) : undefined;
  const onHiddenFailure = (toolName: string) => {
    if (runtime.reportHiddenFailures(toolName, hiddenFailureReason) && warn)
      console.warn(
        `recourse: ${toolName} hides its failures from recourse: ${hiddenFailureReason}.`,
      );
  };

  // biome-ignore lint/suspicious/noExplicitAny: tools of any context type
  const tools = <T extends readonly Tool<any>[]>(
    list: T,
    policies?: Record<string, ToolPolicy>,
  ): T => {
    const names = new Set(list.map((entry) => entry.name));
    for (const [name, policy] of Object.entries(policies ?? {})) {
      if (!names.has(name))
        throw new InvalidOptionsError(
          `tools.${name}`,
          'a policy for a tool that is not in this list',
        );
      runtime.declareTool(name, policy, 'own');
    }
    const wrapped = list.map((entry) => {
      if (entry.type !== 'function') return entry;
      // The SDK's per-call timeout becomes recourse's per-attempt deadline.
      if (entry.timeoutMs !== undefined)
        runtime.declareTool(entry.name, { timeoutMs: entry.timeoutMs });
      return wrapFunctionTool(entry, { runtime, onHiddenFailure, escalation });
    });
    wrappedTools.add(list.filter((entry) => entry.type === 'function').map((entry) => entry.name));
    return wrapped as unknown as T;
  };

  const mcpServers = <T extends readonly MCPServer[]>(
    servers: T,
    policies?: Record<string, ToolPolicy>,
  ): T => {
    // The servers' tools are known only once listed: their policies cannot be checked
    // against names here, nor reported unused.
    for (const [name, policy] of Object.entries(policies ?? {}))
      runtime.declareTool(name, policy, 'own');
    return servers.map((server) => wrapMcpServer(server, runtime)) as unknown as T;
  };

  return {
    runId: runtime.runId,
    tools,
    mcpServers,
    toolUseBehavior: createStopBehavior(runtime),
    isStopped: () => runtime.isStopped(),
    outcome: () => runtime.outcome(),
    compensate: () => runtime.compensate(),
    close: () => runtime.close(),
    runtime,
  };
}
