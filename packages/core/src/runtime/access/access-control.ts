import { everything } from '../../scope/canonical-resource.js';
import type { ScopeGuard } from '../../scope/scope-guard.js';
import type { Classification, Decision, DecisionCode } from '../../types.js';
import type { CallFailureEnding, StopRequest } from '../call/call.js';
import { refusedEnding } from '../call/tool-call.js';
import type { ResolvedTool } from '../options/tool-table.js';
import type { LearnedFacts, RunMemory } from '../run/run-memory.js';
import type { Terminal } from '../run/run-state.js';
import { type BlockCheck, checkCall, findBlock } from './block-check.js';

/**
 * Authorization is not a puzzle: what stands between a call and execution. Static scope
 * rules, the run's remembered denials (shared through the ledger), operator grants, and
 * a stopped run. A call that is refused never reaches its tool.
 */
export interface AccessControl {
  /** False when nothing can refuse this call: no rules, no denials, a run still going. */
  mayRefuse(): boolean;
  /** True once the run ended FAILED: every call is refused, whatever the facts. */
  failed(): boolean;
  /** The refusal of a call about to run, given the run's facts, or undefined when it may run. */
  refuse(tool: ResolvedTool, input: unknown, facts: LearnedFacts): CallFailureEnding | undefined;
  /** The refusal every call gets once the run has stopped. */
  runStopped(): CallFailureEnding;
  /** The same checks as `refuse`, as data, without refusing or recording anything. */
  check(tool: ResolvedTool, input: unknown): Promise<BlockCheck>;
}

export interface AccessParts {
  guard: ScopeGuard;
  memory: RunMemory;
  terminal: () => Terminal | undefined;
  onDenial: 'stop' | 'continue';
  /** A policy's resource function threw: its call reaches everything, and someone is told. */
  onResourceError?: ((tool: string, error: unknown) => void) | undefined;
}

/** The call's canonical resources; undefined when the tool declares none (it touches everything). */
export function resourcesOf(
  tool: ResolvedTool,
  input: unknown,
  onError?: ((tool: string, error: unknown) => void) | undefined,
): string[] | undefined {
  const resource = tool.policy.resource;
  if (!resource) return undefined;
  try {
    const value = resource(input);
    // [] touches nothing (`echo hi`); no resource function touches everything.
    return (typeof value === 'string' ? [value] : [...value])
      .map((r) => String(r).trim())
      .filter(Boolean);
  } catch (error) {
    onError?.(tool.name, error);
    return [everything]; // cannot tell what it touches: fail closed
  }
}

export function createAccessControl(parts: AccessParts): AccessControl {
  const { guard, memory, terminal } = parts;

  const blockInput = (facts: LearnedFacts, tool: ResolvedTool, input: unknown) => ({
    resources: resourcesOf(tool, input, parts.onResourceError),
    capability: tool.policy.capability,
    guard,
    denials: facts.denials,
    grants: facts.grants,
    checkScope: terminal() === undefined,
  });

  const runStopped = (stop?: StopRequest): CallFailureEnding => {
    const blocked = (stop?.status ?? terminal()?.status) === 'BLOCKED';
    return refusal('(run stopped)', 'RUN_STOPPED', blocked ? 'AUTHORIZATION' : 'PERMANENT', {
      reason: `the run stopped earlier (${stop?.reason ?? terminal()?.reason ?? 'stopped'})`,
      stop,
    });
  };

  return {
    mayRefuse: () =>
      terminal() !== undefined ||
      guard.hasRules ||
      !memory.fresh() ||
      memory.known().denials.length > 0,
    runStopped: () => runStopped(),
    failed: () => terminal()?.status === 'FAILED',
    refuse(tool, input, facts) {
      if (terminal()?.status === 'FAILED') return runStopped();
      // Scope refusals are not remembered as denials: the rules are checked on every call
      // anyway, and a call wider than a rule (all of github.com) must not close what the
      // rule allows. Operator grants lift both (see findBlock).
      const found = findBlock(blockInput(facts, tool, input));
      if (found) {
        return refusal(found.resource, found.reason as DecisionCode, 'AUTHORIZATION', {
          reason: 'blocked before execution',
          block: true,
          stop:
            parts.onDenial === 'stop' && !terminal()
              ? { status: 'BLOCKED', reason: 'AUTHORIZATION_DENIED', tool: tool.name }
              : undefined,
        });
      }
      const denied = facts.denials[0];
      if (!terminal() && parts.onDenial === 'stop' && denied) {
        // Denied on another worker of the run: this run stops too.
        return runStopped({ status: 'BLOCKED', reason: 'AUTHORIZATION_DENIED', tool: denied.tool });
      }
      return terminal() ? runStopped() : undefined;
    },
    async check(tool, input) {
      const stopped: BlockCheck = {
        blocked: true,
        resource: '(run stopped)',
        reason: 'RUN_STOPPED',
        grantable: false,
        resources: [],
      };
      if (terminal()?.status === 'FAILED') return stopped;
      const facts = await memory.current();
      const result = checkCall({ ...blockInput(facts, tool, input), stopped: !!terminal() });
      return result.blocked || !terminal() ? result : stopped;
    },
  };
}

function refusal(
  resource: string,
  code: DecisionCode,
  failureClass: Classification['failureClass'],
  details: { reason: string; block?: boolean; stop?: StopRequest | undefined },
): CallFailureEnding {
  const decision: Decision = { action: 'ABORT', code, reason: details.reason, terminal: true };
  const classification: Classification = {
    failureClass,
    code,
    message: resource.startsWith('(') ? 'the run has stopped' : `may not reach ${resource}`,
  };
  return refusedEnding(classification, decision, resource, details);
}
