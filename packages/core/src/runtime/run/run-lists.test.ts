import { describe, expect, it } from 'vitest';
import { trim } from './run-lists.js';

describe('trim', () => {
  it('keeps the newest entries in order across many trims, with deletes and re-inserts between them', () => {
    const map = new Map<string, number>();
    // What the map must hold: insertion order, the oldest dropped first.
    let expected: string[] = [];
    const dropped: number[] = [];
    const limit = 50;
    for (let i = 0; i < 2_000; i++) {
      const key = `k-${i % 7 === 0 ? i - 3 : i}`; // now and then a key seen before
      if (!map.has(key)) {
        map.set(key, i);
        expected.push(key);
      }
      if (i % 11 === 0) {
        // Deleted elsewhere (the oldest and a recent one): the trim must skip them.
        const gone = [expected[0]!, expected.at(-2)!];
        for (const k of gone) map.delete(k);
        expected = expected.filter((k) => !gone.includes(k));
      }
      const before = [...map.values()];
      trim(map, limit, (value) => dropped.push(value));
      if (map.size !== before.length) {
        const cut = before.length - map.size;
        expect(dropped.slice(-cut)).toEqual(before.slice(0, cut));
        expected = expected.slice(cut);
      }
      expect(map.size).toBeLessThanOrEqual(limit + limit / 10);
    }
    expect([...map.keys()]).toEqual(expected);
    expect(map.size).toBeGreaterThanOrEqual(limit);
  });
});
