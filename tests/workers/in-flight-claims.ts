import type { Ledger } from '@recourse/core';
import type { ClaimRequest, ClaimResult } from '@recourse/core/store';

/**
 * The same ledger, telling `onInFlight` the first time a claim of a key matching `watch`
 * comes back `in_flight`: the moment this process is provably waiting on another one. The
 * store does all the work; only the answer is observed, so that a test can hold the other
 * process inside its write until this one is waiting, instead of hoping the two overlap.
 */
export function reportInFlightClaims(
  ledger: Ledger,
  watch: (key: string) => boolean,
  onInFlight: (key: string) => void,
): Ledger {
  const reported = new Set<string>();
  const claim = async (request: ClaimRequest): Promise<ClaimResult> => {
    const result = await ledger.claim(request);
    if (result.status === 'in_flight' && watch(request.key) && !reported.has(request.key)) {
      reported.add(request.key);
      onInFlight(request.key);
    }
    return result;
  };
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'claim') return claim;
      // Bound to the store itself: its methods use private fields a proxy does not have.
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
