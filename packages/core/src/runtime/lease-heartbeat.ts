import type { Clock } from '../clock.js';
import { defaultLeaseMs, type Ledger } from '../ledger/ledger.js';

export interface LeaseHeartbeatOptions {
  ledger: Ledger;
  key: string;
  /** The fencing token of the held claim. */
  token: string;
  /** Drives the beats: the runtime's clock, so that tests move time by hand. */
  clock: Clock;
  /** Time between renewals. Default: a third of the ledger's `leaseMs`. */
  intervalMs?: number | undefined;
}

export interface LeaseHeartbeat {
  /** Ends the beats; a renewal already on its way is ignored. Safe to call twice. */
  stop(): void;
  /**
   * True once a renewal was refused or failed: another worker may own the key now, so the
   * final `complete` is expected to fail with `LeaseLostError`.
   */
  readonly lost: boolean;
}

/**
 * Renews a held claim's lease every `intervalMs` until stopped, so that a write running
 * longer than one lease is not taken over by another worker while it is still working
 * (which would reconcile or replay it under the first one's feet). Renewing at a third
 * of the lease leaves two beats of slack for a slow store. Stops by itself at the first
 * refusal or error: a lost lease cannot be won back, only the new owner's work counts.
 * A ledger without `renew` gets a heartbeat that does nothing.
 */
export function startLeaseHeartbeat(options: LeaseHeartbeatOptions): LeaseHeartbeat {
  const { ledger, key, token, clock } = options;
  const controller = new AbortController();
  const { signal } = controller;
  let lost = false;
  const heartbeat: LeaseHeartbeat = {
    stop: () => controller.abort(),
    get lost() {
      return lost;
    },
  };
  if (!ledger.renew) return heartbeat;
  const intervalMs = options.intervalMs ?? leaseRenewalIntervalMs(ledger);

  const beat = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        await clock.sleep(intervalMs, signal);
      } catch {
        return; // stopped
      }
      if (signal.aborted) return;
      let renewed: boolean;
      try {
        renewed = (await ledger.renew?.(key, token)) === true;
      } catch {
        renewed = false;
      }
      // A beat that lands after stop (the write completed meanwhile) says nothing.
      if (signal.aborted) return;
      if (!renewed) {
        lost = true;
        return;
      }
    }
  };
  void beat();
  return heartbeat;
}

/** A third of the ledger's lease (at least 1 ms), or of `defaultLeaseMs` when it has none. */
export function leaseRenewalIntervalMs(ledger: Ledger): number {
  const leaseMs = ledger.leaseMs ?? defaultLeaseMs;
  const usable = Number.isFinite(leaseMs) && leaseMs > 0 ? leaseMs : defaultLeaseMs;
  return Math.max(1, Math.floor(usable / 3));
}
