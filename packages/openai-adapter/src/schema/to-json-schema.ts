import { toJSONSchema } from 'zod/v4/core';
import { zodToJsonSchema } from 'zod-to-json-schema';

/** A JSON Schema object, as the OpenAI APIs take it in `parameters`. */
export type JsonSchema = { [key: string]: unknown };

/** zod 4 (classic or mini) and zod 3.25's `zod/v4` schemas carry `_zod`. */
export function isZod4Schema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** zod 3 schemas carry `_def` and no `_zod`. */
export function isZod3Schema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && '_def' in schema && !('_zod' in schema);
}

/**
 * The JSON Schema the model is given. zod 4 goes through zod's own converter (draft-7,
 * like `openai/helpers/zod`), zod 3 through `zod-to-json-schema` with references inlined;
 * a plain JSON Schema is passed through untouched.
 */
export function toJsonSchema(schema: unknown): JsonSchema {
  if (isZod4Schema(schema)) {
    const converted = toJSONSchema(schema as Parameters<typeof toJSONSchema>[0], {
      target: 'draft-7',
      unrepresentable: 'any',
    }) as JsonSchema;
    return withoutDialect(converted);
  }
  if (isZod3Schema(schema)) {
    const converted = zodToJsonSchema(schema as Parameters<typeof zodToJsonSchema>[0], {
      $refStrategy: 'none',
    }) as JsonSchema;
    return withoutDialect(converted);
  }
  return schema as JsonSchema;
}

// `$schema` is noise to the model and not part of the strict-mode subset.
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
