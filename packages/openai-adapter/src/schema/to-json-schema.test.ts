import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod-v3';
import { defineTools } from '../define-tools.js';
import { checkStrictCompatible } from './strict-compatible.js';
import { isZod3Schema, isZod4Schema, toJsonSchema } from './to-json-schema.js';

const execute = () => 'ok';

describe('toJsonSchema', () => {
  it('converts zod 4 with its own converter, without $schema', () => {
    const schema = z.object({ paymentId: z.string(), amount: z.number() });
    expect(isZod4Schema(schema)).toBe(true);
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      properties: { paymentId: { type: 'string' }, amount: { type: 'number' } },
      required: ['paymentId', 'amount'],
      additionalProperties: false,
    });
  });

  it('converts zod 3 through zod-to-json-schema', () => {
    const schema = z3.object({ paymentId: z3.string(), tags: z3.array(z3.string()) });
    expect(isZod3Schema(schema)).toBe(true);
    expect(isZod4Schema(schema)).toBe(false);
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        paymentId: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['paymentId', 'tags'],
      additionalProperties: false,
    });
  });

  it('passes a plain JSON Schema through', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    expect(toJsonSchema(schema)).toBe(schema);
  });
});

describe('strictness', () => {
  it('is strict when every property is required and objects are closed', () => {
    const nested = z.object({ a: z.string(), b: z.object({ c: z.number().nullable() }) });
    expect(checkStrictCompatible(toJsonSchema(nested))).toEqual({ ok: true });
  });

  it.each([
    ['an optional field', z.object({ a: z.string().optional() }), 'optional'],
    ['a keyword strict mode rejects', z.object({ a: z.string().min(3) }), 'minLength'],
    [
      'an open plain schema',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      'additionalProperties',
    ],
    ['a non-object root', { type: 'string' }, 'root'],
  ])('is not strict with %s', (_, schema, reason) => {
    const verdict = checkStrictCompatible(toJsonSchema(schema));
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? '' : verdict.reason).toContain(reason);
  });

  it('defines the tools for both APIs, with strict set per schema (zod 4 and zod 3)', () => {
    const tools = defineTools({
      refund: { description: 'Refund', inputSchema: z.object({ id: z.string() }), execute },
      search: {
        inputSchema: z3.object({ q: z3.string(), limit: z3.number().optional() }),
        execute,
      },
      forced: { inputSchema: z.object({ q: z.string().optional() }), strict: true, execute },
    });
    expect(tools.chat).toEqual([
      {
        type: 'function',
        function: {
          name: 'refund',
          description: 'Refund',
          parameters: toJsonSchema(z.object({ id: z.string() })),
          strict: true,
        },
      },
      {
        type: 'function',
        function: { name: 'search', parameters: expect.any(Object), strict: false },
      },
      {
        type: 'function',
        function: { name: 'forced', parameters: expect.any(Object), strict: true },
      },
    ]);
    expect(tools.responses.map((tool) => [tool.type, tool.name, tool.strict])).toEqual([
      ['function', 'refund', true],
      ['function', 'search', false],
      ['function', 'forced', true],
    ]);
    expect(tools.responses[0]).toMatchObject({
      description: 'Refund',
      parameters: { required: ['id'] },
    });
  });

  it('rejects a bad tool name or a missing execute at definition time', () => {
    expect(() => defineTools({ 'bad name': { inputSchema: z.object({}), execute } })).toThrow(
      /tools\.bad name/,
    );
    expect(() => defineTools({ ok: { inputSchema: z.object({}) } as never })).toThrow(/execute/);
  });
});

describe('argument parsing', () => {
  const tools = defineTools({
    z4: { inputSchema: z.object({ n: z.number().default(1), s: z.string() }), execute },
    z3: { inputSchema: z3.object({ s: z3.string() }), execute },
    plain: {
      inputSchema: {
        type: 'object',
        properties: {
          user: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] },
        },
        required: ['user'],
        additionalProperties: false,
      },
      execute,
    },
  });
  const parse = (name: string, text: string) => tools.get(name)!.parse(text);

  it('returns zod-parsed input (defaults applied)', () => {
    expect(parse('z4', '{"s":"x"}')).toEqual({ ok: true, input: { n: 1, s: 'x' } });
    expect(parse('z3', '{"s":"x"}')).toEqual({ ok: true, input: { s: 'x' } });
  });

  it('reports the JSON error, the zod error and the JSON Schema issue with its path', () => {
    const broken = parse('z4', '{"s":');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && (broken.error as Error).name).toBe('SyntaxError');
    const wrong = parse('z3', '{"s":1}');
    expect(!wrong.ok && (wrong.error as { issues: { path: string[] }[] }).issues[0]!.path).toEqual([
      's',
    ]);
    const plain = parse('plain', '{"user":{"age":"old"}}');
    expect(!plain.ok && (plain.error as { issues: unknown[] }).issues).toEqual([
      { path: ['user', 'age'], message: 'expected integer, got string' },
    ]);
    expect(parse('plain', '{"user":{"age":3},"extra":1}')).toMatchObject({ ok: false });
    expect(parse('plain', '{"user":{"age":3}}')).toEqual({ ok: true, input: { user: { age: 3 } } });
  });
});
