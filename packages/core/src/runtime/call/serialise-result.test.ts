import { describe, expect, it } from 'vitest';
import { parseStoredResult, serialiseResult } from './serialise-result.js';

class Refund {
  readonly id = 're_1';
  readonly amount = 100;
  get label() {
    return `refund ${this.id}`;
  }
}
class Empty {}
class Ledger extends Map<string, number> {}

describe('serialiseResult: what JSON holds is stored, byte for byte the same on replay', () => {
  const sharedLeaf = { ok: true };
  const storable: [string, unknown][] = [
    ['null', null],
    ['a string', 'refunded'],
    ['a number', -0.5],
    ['a boolean', false],
    ['nested JSON', { id: 'r_1', tags: ['a', 'b'], meta: { n: null, deep: [[1], { x: -3 }] } }],
    ['an empty object and array', { a: {}, b: [] }],
    ['a null-prototype object', Object.assign(Object.create(null), { id: 'x' })],
    ['a class instance with own data', new Refund()],
    ['a boxed string and number', { s: new String('x'), n: new Number(2) }],
    ['a shared (not cyclic) reference', { a: sharedLeaf, b: [sharedLeaf, sharedLeaf] }],
    ['a field that is undefined', { id: 'x', note: undefined }],
  ];
  it.each(storable)('%s', (_label, value) => {
    const stored = serialiseResult(value);
    expect(stored).toEqual({ json: JSON.stringify(value) });
    expect(parseStoredResult(stored)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('values with their own toJSON serialise themselves: a Date, a Buffer, a Map that says how', () => {
    const map = Object.assign(new Map([[1, 2]]), { toJSON: () => [[1, 2]] });
    const value = { at: new Date(0), bytes: Buffer.from('hi'), map };
    expect(serialiseResult(value)).toEqual({ json: JSON.stringify(value) });
    expect(parseStoredResult(serialiseResult(value))).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      bytes: { type: 'Buffer', data: [104, 105] },
      map: [[1, 2]],
    });
  });

  it('undefined is nothing, not unstorable', () => {
    expect(serialiseResult(undefined)).toEqual({});
    expect(parseStoredResult({})).toBeUndefined();
  });
});

describe('serialiseResult: what JSON loses is unstorable, naming the kind and where', () => {
  const cyclic: Record<string, unknown> = { id: 'r-1', owner: {} };
  (cyclic.owner as Record<string, unknown>).self = cyclic;
  const lossy: [string, unknown, string][] = [
    ['a Map deep in an array', { items: [1, 2, 3, new Map([[1, 2]])] }, 'holds a Map at .items[3]'],
    ['a Map at the top', new Map([['a', 1]]), 'is a Map'],
    ['a Map subclass', { ledger: new Ledger() }, 'holds a Map at .ledger'],
    ['a Set', { tags: new Set(['a']) }, 'holds a Set at .tags'],
    ['a WeakMap', { cache: new WeakMap() }, 'holds a WeakMap at .cache'],
    ['a WeakSet', { seen: new WeakSet() }, 'holds a WeakSet at .seen'],
    ['an Error', { error: new TypeError('boom') }, 'holds an Error (TypeError) at .error'],
    [
      'an Error with enumerable fields',
      { error: Object.assign(new Error('x'), { code: 'E1' }) },
      'holds an Error (Error) at .error',
    ],
    ['a RegExp', { pattern: /a+/g }, 'holds a RegExp at .pattern'],
    ['a typed array', { pixels: new Uint8Array([1, 2]) }, 'holds a Uint8Array at .pixels'],
    ['an ArrayBuffer', { raw: new ArrayBuffer(4) }, 'holds an ArrayBuffer at .raw'],
    ['a DataView', { view: new DataView(new ArrayBuffer(2)) }, 'holds a DataView at .view'],
    ['a Promise (a missing await)', { pending: Promise.resolve(1) }, 'holds a Promise at .pending'],
    [
      'a class instance without own data',
      { headers: new Headers({ a: '1' }) },
      'holds a Headers with no own enumerable data at .headers',
    ],
    ['an empty class instance', [new Empty()], 'holds an Empty with no own enumerable data at [0]'],
    ['a function', { a: [{ b: () => 1 }] }, 'holds a function at .a[0].b'],
    ['a function at the top', () => 1, 'is a function'],
    ['a symbol', { s: Symbol('x') }, 'holds a symbol at .s'],
    ['a symbol in an array', [Symbol('x')], 'holds a symbol at [0]'],
    ['a boxed symbol', { s: Object(Symbol('x')) }, 'holds a symbol at .s'],
    ['NaN', { ratio: Number.NaN }, 'holds NaN at .ratio'],
    ['Infinity in an array', [1, Number.POSITIVE_INFINITY], 'holds Infinity at [1]'],
    ['a BigInt', { amount: 10n }, 'holds a BigInt at .amount'],
    ['a BigInt at the top', 10n, 'is a BigInt'],
    ['a cycle', cyclic, 'holds a cycle at .owner.self'],
    ['an odd key', { 'line items': [new Set()] }, 'holds a Set at ["line items"][0]'],
    [
      'a throwing toJSON',
      {
        a: {
          toJSON: () => {
            throw new Error('no');
          },
        },
      },
      'holds a toJSON that throws at .a',
    ],
    [
      'a BigInt a toJSON returns',
      { a: { toJSON: () => ({ cents: 1n }) } },
      'holds a BigInt at .a.cents',
    ],
    [
      'a getter that throws',
      Object.defineProperty({}, 'x', {
        enumerable: true,
        get() {
          throw new Error('no');
        },
      }),
      'holds a property that throws when read at .x',
    ],
  ];
  it.each(lossy)('%s', (_label, value, reason) => {
    const stored = serialiseResult(value);
    expect(stored).toEqual({ unstorable: `the result ${reason}` });
    expect(stored.json).toBeUndefined();
  });

  it('finds what JSON loses anywhere in a large result, and says where', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ id: i, tags: ['a'], at: new Date(i) }));
    expect(serialiseResult(rows).json).toBe(JSON.stringify(rows));
    (rows[4_321]!.tags as unknown[]).push(new Map());
    expect(serialiseResult(rows)).toEqual({
      unstorable: 'the result holds a Map at [4321].tags[1]',
    });
  });

  it('bounds a long path and long keys', () => {
    let value: Record<string, unknown> = { leaf: new Set() };
    for (let i = 0; i < 40; i++) value = { [`level_${i}_${'k'.repeat(60)}`]: value };
    const reason = serialiseResult(value).unstorable ?? '';
    expect(reason).toMatch(/^the result holds a Set at \.level_39_k+…/);
    expect(reason).toMatch(/\.leaf$/);
    expect(reason.length).toBeLessThan(220);
  });

  it('a result whose getter changes it between reads is not replayed', () => {
    let reads = 0;
    const value = {
      get rows() {
        reads++;
        return reads === 1 ? [] : [new Map()];
      },
    };
    expect(serialiseResult(value)).toEqual({ unstorable: 'the result holds a Map at .rows[0]' });
  });
});
