import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson edge cases', () => {
  it('writes array holes as null, as JSON.stringify does', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    const sparse = [1, , 3];
    const long = new Array(3);
    long[1] = 'x';
    expect(canonicalJson(sparse)).toBe('[1,null,3]');
    expect(canonicalJson(long)).toBe('[null,"x",null]');
    expect(canonicalJson({ a: new Array(2) })).toBe('{"a":[null,null]}');
    for (const value of [sparse, long]) {
      expect(canonicalJson(value)).toBe(JSON.stringify(value));
      expect(() => JSON.parse(canonicalJson(value))).not.toThrow();
    }
  });

  it('orders keys by UTF-16 code units (RFC 8785), not by code points or locale', () => {
    // U+FF61 sorts after U+1F600's high surrogate (U+D83D) only by code point; by code
    // units the surrogate (0xD83D) comes first.
    const value = { '\uff61': 1, '\u{1f600}': 2, a: 3, B: 4, '10': 5, '9': 6, é: 7 };
    expect(canonicalJson(value)).toBe('{"10":5,"9":6,"B":4,"a":3,"é":7,"😀":2,"｡":1}');
  });

  it('orders many keys the same way as few', () => {
    const keys = Array.from({ length: 60 }, (_, index) => `k${(index * 37) % 60}`);
    const value = Object.fromEntries(keys.map((key) => [key, 1]));
    const sorted = [...keys].sort();
    expect(Object.keys(JSON.parse(canonicalJson(value)))).toEqual(sorted);
  });

  it('escapes strings exactly as JSON.stringify does', () => {
    const texts = [
      'plain',
      'quote " and \\ back',
      'tab\tnew\nline',
      '\u0000\u001f',
      '\ud800 lone',
      '😀',
      'x'.repeat(100),
    ];
    for (const text of texts) {
      expect(canonicalJson(text)).toBe(JSON.stringify(text));
      expect(canonicalJson({ [text]: text })).toBe(
        `{${JSON.stringify(text)}:${JSON.stringify(text)}}`,
      );
    }
  });

  it('marks only real cycles; a shared child is written twice', () => {
    const shared = { id: 1 };
    expect(canonicalJson({ a: shared, b: [shared, shared] })).toBe(
      '{"a":{"id":1},"b":[{"id":1},{"id":1}]}',
    );
    const loop: unknown[] = [];
    loop.push(loop, { back: loop });
    expect(canonicalJson(loop)).toBe('["[Circular]",{"back":"[Circular]"}]');
    const map = new Map<string, unknown>([['z', 1]]);
    map.set('self', map);
    expect(canonicalJson(map)).toBe('{"self":"[Circular]","z":1}');
  });

  it('maps Map, Set, Date, toJSON, bigint, functions and symbols', () => {
    const value = {
      map: new Map<unknown, unknown>([
        ['b', 2],
        ['a', new Set([3, 1])],
      ]),
      invalid: new Date(Number.NaN),
      custom: { toJSON: () => ({ y: 2, x: 1 }) },
      big: -12345678901234567890n,
      fn: () => 1,
      sym: Symbol('s'),
      list: [undefined, () => 1, Symbol('t'), Number.POSITIVE_INFINITY, -0],
    };
    expect(canonicalJson(value)).toBe(
      '{"big":"-12345678901234567890","custom":{"x":1,"y":2},"fn":null,"invalid":null,"list":[null,null,null,null,0],"map":{"a":[3,1],"b":2},"sym":null}',
    );
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('canonicalJson of Map keys', () => {
  it('names keys as Object.fromEntries does, and never throws on a key without a string form', () => {
    const bare = Object.create(null) as object;
    const map = new Map<unknown, unknown>([
      [1, 'one'],
      ['b', 2],
      [Symbol('dropped'), 3],
      [bare, 'bare'],
      ['__proto__', 'own'],
    ]);
    expect(canonicalJson(map)).toBe('{"1":"one","__proto__":"own","b":2,"{}":"bare"}');
  });
});
