import { hasMarker, InvalidOptionsError } from '@recourse/core/adapter';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { type CompiledTool, compileTool } from './compile-tool.js';
import type { RecoveryToolDefinition } from './tool-types.js';

const marker = Symbol.for('recourse.openai.tool-set');

/** Tool definitions for both OpenAI APIs plus what executes them, from `defineTools`. */
export interface RecoveryToolSet<S = Record<string, unknown>> {
  readonly [marker]: true;
  /** The definitions as given, with their types. */
  readonly definitions: { [K in keyof S]: RecoveryToolDefinition<S[K]> };
  readonly names: readonly string[];
  /** For `client.chat.completions.create({ tools })`. */
  readonly chat: ChatCompletionFunctionTool[];
  /** For `client.responses.create({ tools })`. */
  readonly responses: FunctionTool[];
  /** The compiled tool, or undefined for a name the set does not have. */
  get(name: string): CompiledTool | undefined;
}

/** Any tool set, whatever its schemas: what the loops and executors accept. */
// biome-ignore lint/suspicious/noExplicitAny: execute's input is contravariant; any set must fit.
export type AnyRecoveryToolSet = RecoveryToolSet<any>;

/**
 * Compiles tool definitions once: JSON Schema (zod 4, zod 3 or plain), strictness, and
 * the argument parser. `execute` keeps its input type, inferred from the zod schema.
 */
export function defineTools<S extends Record<string, unknown>>(
  defs: {
    [K in keyof S]: RecoveryToolDefinition<S[K]>;
  },
): RecoveryToolSet<S> {
  if (typeof defs !== 'object' || defs === null)
    throw new InvalidOptionsError('tools', 'expected an object of tool definitions by name');
  const compiled = new Map<string, CompiledTool>();
  for (const [name, definition] of Object.entries(defs)) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw new InvalidOptionsError(
        `tools.${name}`,
        'a tool name is 1-64 of a-z, A-Z, 0-9, _ and -',
      );
    compiled.set(name, compileTool(name, definition as RecoveryToolDefinition<unknown>));
  }
  const list = [...compiled.values()];
  return {
    [marker]: true,
    definitions: defs,
    names: list.map((tool) => tool.name),
    chat: list.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
        strict: tool.strict,
      },
    })),
    responses: list.map((tool) => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
      strict: tool.strict,
    })),
    get: (name) => compiled.get(name),
  };
}

export function isRecoveryToolSet(value: unknown): value is RecoveryToolSet {
  return hasMarker(value, marker);
}
