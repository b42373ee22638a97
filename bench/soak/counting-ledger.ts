import type { Ledger } from '@recourse/core';

export type LedgerCallCounts = Record<string, number>;

/**
 * The ledger behind a proxy that counts each method call: one call of a remote store is
 * one round trip. Only for counting: a proxied method is not the store's own, so the
 * runtime cannot tell that an in-process store answers at once, and times it.
 */
export function countingLedger(ledger: Ledger): { ledger: Ledger; counts: LedgerCallCounts } {
  const counts: LedgerCallCounts = {};
  const proxy = new Proxy(ledger, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close')
        return value;
      return (...args: unknown[]) => {
        counts[property] = (counts[property] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ledger: proxy, counts };
}
