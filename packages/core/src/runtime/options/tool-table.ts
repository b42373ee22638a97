import { type RecoveryOptions, retryDefaults, type ToolPolicy } from './recovery-options.js';

/** One tool's policy with every default applied, computed once per tool. */
export interface ResolvedTool {
  readonly name: string;
  readonly policy: ToolPolicy;
  /** Declared read, declared write, or not declared anywhere (treated as "may write"). */
  readonly effects: 'read' | 'write' | 'undeclared';
  /** Claimed in the ledger before it runs: a write, or a tool that may write. */
  readonly claims: boolean;
  readonly maxAttempts: number;
  readonly timeoutMs: number | undefined;
  readonly dependency: string;
  /** How a completed read of this tool counts in `completed_steps`: once per tool. */
  readonly stepId: string;
}

/**
 * The policies of a run's tools: the tool's own policy, then what the tool says of itself
 * (MCP annotations, given through `declare`), then `defaultPolicy`, field by field.
 */
export interface ToolTable {
  resolve(toolName: string): ResolvedTool;
  /**
   * A policy given when the tool is wrapped: `'own'` (the user's, typed by the tool's input;
   * over `policies[name]` field by field) or `'hints'` (what a tool says of itself, e.g.
   * MCP's `readOnlyHint`: below the user's own policy).
   */
  declare(toolName: string, policy: ToolPolicy, layer?: 'own' | 'hints'): void;
  /** Names with a policy of their own. */
  readonly named: readonly string[];
  /**
   * The read tools that can show whether a write of `tool` landed: its `verifyWith`, else
   * the declared reads of the same dependency.
   */
  verifiersOf(tool: ResolvedTool): readonly string[];
}

export function createToolTable(options: RecoveryOptions): ToolTable {
  const own = options.policies ?? {};
  const fallback = options.defaultPolicy ?? {};
  const maxAttempts = options.retry?.maxAttempts ?? retryDefaults.maxAttempts;
  const timeoutMs = options.retry?.timeoutMs;
  const hints = new Map<string, ToolPolicy>();
  const wrapped = new Map<string, ToolPolicy>();
  const resolved = new Map<string, ResolvedTool>();

  const build = (name: string): ResolvedTool => {
    const layers = [
      wrapped.get(name) ?? {},
      Object.hasOwn(own, name) ? own[name]! : {},
      hints.get(name) ?? {},
      fallback,
    ];
    const policy: Record<string, unknown> = {};
    for (const layer of [...layers].reverse()) {
      for (const [key, value] of Object.entries(layer))
        if (value !== undefined) policy[key] = value;
    }
    const merged = policy as ToolPolicy;
    const effects =
      merged.sideEffects === true ? 'write' : merged.sideEffects === false ? 'read' : 'undeclared';
    return {
      name,
      policy: merged,
      effects,
      claims: effects !== 'read',
      maxAttempts: merged.maxAttempts ?? maxAttempts,
      timeoutMs: merged.timeoutMs ?? timeoutMs,
      dependency: merged.dependency ?? name,
      stepId: `read:${name}`,
    };
  };

  return {
    resolve(name) {
      let tool = resolved.get(name);
      if (!tool) {
        tool = build(name);
        resolved.set(name, tool);
      }
      return tool;
    },
    declare(name, policy, layer = 'hints') {
      (layer === 'own' ? wrapped : hints).set(name, policy);
      resolved.delete(name);
    },
    named: Object.keys(own),
    verifiersOf(tool) {
      const named = tool.policy.verifyWith;
      if (named !== undefined) return typeof named === 'string' ? [named] : [...named];
      const known = new Set([...Object.keys(own), ...wrapped.keys(), ...hints.keys()]);
      return [...known].filter((name) => {
        const other = this.resolve(name);
        return other.effects === 'read' && other.dependency === tool.dependency;
      });
    },
  };
}
