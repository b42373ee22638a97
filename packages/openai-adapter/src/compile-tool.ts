import { InvalidOptionsError } from '@recourse/core/adapter';
import { checkStrictCompatible } from './schema/strict-compatible.js';
import {
  isZod3Schema,
  isZod4Schema,
  type JsonSchema,
  toJsonSchema,
} from './schema/to-json-schema.js';
import { validateJsonSchema } from './schema/validate-json-schema.js';
import { ToolInputValidationError } from './tool-errors.js';
import type { RecoveryToolDefinition } from './tool-types.js';

/** The outcome of reading a call's `arguments` string: the input, or why it is wrong. */
export type ParsedArguments =
  | { ok: true; input: unknown }
  | { ok: false; input: unknown; error: unknown };

/** One tool, ready for both APIs: its JSON Schema, strictness, parser and executor. */
export interface CompiledTool {
  readonly name: string;
  readonly description: string | undefined;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
  /** `JSON.parse` then zod `safeParse` (or the JSON Schema check). Never throws. */
  parse(argumentsText: string): ParsedArguments;
  readonly definition: RecoveryToolDefinition<unknown>;
}

type SafeParse = (value: unknown) => { success: boolean; data?: unknown; error?: unknown };

export function compileTool(
  name: string,
  definition: RecoveryToolDefinition<unknown>,
): CompiledTool {
  if (typeof definition?.execute !== 'function')
    throw new InvalidOptionsError(`tools.${name}.execute`, 'must be a function');
  const schema = definition.inputSchema;
  if (typeof schema !== 'object' || schema === null)
    throw new InvalidOptionsError(
      `tools.${name}.inputSchema`,
      'must be a zod schema or a JSON Schema',
    );
  const parameters = toJsonSchema(schema);
  const verdict = checkStrictCompatible(parameters);
  // An explicit choice is sent as given: the API's strict subset grows faster than our check.
  const strict = definition.strict ?? verdict.ok;
  const isZod = isZod4Schema(schema) || isZod3Schema(schema);
  const safeParse = isZod
    ? ((schema as { safeParse: SafeParse }).safeParse.bind(schema) as SafeParse)
    : undefined;

  return {
    name,
    description: definition.description,
    parameters,
    strict,
    definition,
    parse(argumentsText) {
      let raw: unknown;
      try {
        // Models send "" for a call without arguments.
        raw = argumentsText.trim() === '' ? {} : JSON.parse(argumentsText);
      } catch (error) {
        return { ok: false, input: argumentsText, error };
      }
      if (safeParse) {
        const result = safeParse(raw);
        return result.success
          ? { ok: true, input: result.data }
          : { ok: false, input: raw, error: result.error };
      }
      const issue = validateJsonSchema(raw, parameters);
      return issue
        ? { ok: false, input: raw, error: new ToolInputValidationError(name, issue) }
        : { ok: true, input: raw };
    },
  };
}
