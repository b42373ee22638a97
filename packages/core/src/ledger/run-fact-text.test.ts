import { describe, expect, it } from 'vitest';
import { checkStoredResult } from './check-stored-result.js';
import { createRunFactLists, pushRunFact, serializeRunFact } from './run-fact-text.js';

describe('serializeRunFact', () => {
  it('keeps every field of the fact as JSON text', () => {
    const fact = { resource: 'r', capability: 'write', tool: 't', reason: 'HTTP_403', at: 5 };
    expect(JSON.parse(serializeRunFact('denial', 'r=write', fact))).toEqual(fact);
  });

  it.each([
    ['kind', 'verdict', 'x', { at: 1 }],
    ['id', 'denial', 7, { at: 1 }],
    ['fact', 'denial', 'x', null],
    ['fact', 'denial', 'x', ['not', 'an', 'object']],
    ['fact', 'denial', 'x', { amount: 10n }],
  ])('rejects a bad %s, naming the field', (field, kind, id, fact) => {
    expect(() => serializeRunFact(kind, id, fact)).toThrow(
      expect.objectContaining({ name: 'InvalidOptionsError', field }),
    );
  });
});

describe('pushRunFact', () => {
  it('appends fresh copies to their kind, and skips a kind this version does not know', () => {
    const lists = createRunFactLists();
    const text = '{"resource":"r","tool":"t","reason":"x","at":1}';
    pushRunFact(lists, 'denial', text);
    pushRunFact(lists, 'denial', text);
    pushRunFact(lists, 'verdict', '{"a":1}');
    expect(lists.denial).toHaveLength(2);
    expect(lists.denial[0]).not.toBe(lists.denial[1]);
    expect(Object.keys(lists).sort()).toEqual(['denial', 'escalation', 'grant', 'poison']);
  });
});

describe('checkStoredResult', () => {
  it('keeps the two text fields and nothing else', () => {
    const extra = { json: '{"a":1}', other: 1 } as { json: string };
    expect(checkStoredResult(extra)).toEqual({ json: '{"a":1}' });
    expect(checkStoredResult({})).toEqual({});
    expect(checkStoredResult({ unstorable: 'BigInt' })).toEqual({ unstorable: 'BigInt' });
  });

  it('rejects a result that is not text, naming the field', () => {
    const bad = { unstorable: 3 } as unknown as { unstorable: string };
    expect(() => checkStoredResult(bad)).toThrow(
      expect.objectContaining({ field: 'result.unstorable' }),
    );
    expect(() => checkStoredResult(null as never)).toThrow(
      expect.objectContaining({ field: 'result' }),
    );
  });
});
