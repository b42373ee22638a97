import { describe, expect, it } from 'vitest';
import { createRecentIds } from './recent-ids.js';

describe('createRecentIds', () => {
  it('remembers the newest ids and forgets the oldest once over its limit', () => {
    const ids = createRecentIds(100);
    for (let i = 0; i < 1_000; i++) ids.add(`call-${i}`);
    expect(ids.has('call-999')).toBe(true);
    expect(ids.has('call-900')).toBe(true);
    expect(ids.has('call-0')).toBe(false);
    expect(ids.has('call-800')).toBe(false);
  });

  it('an id added twice is kept once and stays known', () => {
    const ids = createRecentIds(2);
    ids.add('a');
    ids.add('a');
    ids.add('b');
    expect(ids.has('a')).toBe(true);
    expect(ids.has('b')).toBe(true);
  });
});
