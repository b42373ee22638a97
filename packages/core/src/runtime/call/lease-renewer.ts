import type { Clock } from '../../clock.js';
import { defaultLeaseMs, type Ledger } from '../../ledger/ledger.js';
import { createLedgerDeadline } from '../ledger-deadline.js';

/** A claim kept alive while its write runs. */
export interface HeldLease {
  /** True once a renewal was refused or failed: another worker may own the key now. */
  readonly lost: boolean;
  /** The claim is settled: stop renewing it. Safe to call twice. */
  release(): void;
}

export interface LeaseRenewer {
  hold(key: string, token: string): HeldLease;
  /** Claims being renewed now. */
  readonly held: number;
}

/** A held claim: its own handle (no closure or getter made per claim). */
class Lease implements HeldLease {
  lost = false;
  constructor(
    readonly key: string,
    readonly token: string,
    private readonly leases: Set<Lease>,
  ) {}

  release(): void {
    this.leases.delete(this);
  }
}

const renewers = new WeakMap<Ledger, WeakMap<Clock, LeaseRenewer>>();
const done: HeldLease = { lost: false, release() {} };

/**
 * One renewal ticker per ledger (and clock), shared by every claim held on it: each tick
 * renews every held claim, every third of the lease, so a write slower than one lease is
 * not taken over while it still runs. The ticker sleeps on the injected clock (tests drive
 * it), does not keep the process alive, and stops after a tick with nothing to renew.
 * A renewal that has not answered by the next tick counts as refused (a hung store must
 * not let a takeover go unnoticed). A ledger without `renew` gets claims never renewed.
 */
export function leaseRenewerFor(ledger: Ledger, clock: Clock): LeaseRenewer {
  let byClock = renewers.get(ledger);
  if (!byClock) {
    byClock = new WeakMap();
    renewers.set(ledger, byClock);
  }
  let renewer = byClock.get(clock);
  if (!renewer) {
    renewer = createLeaseRenewer(ledger, clock);
    byClock.set(clock, renewer);
  }
  return renewer;
}

export function createLeaseRenewer(ledger: Ledger, clock: Clock): LeaseRenewer {
  const leases = new Set<Lease>();
  const intervalMs = leaseRenewalIntervalMs(ledger);
  const deadline = createLedgerDeadline(ledger, clock, intervalMs);
  let ticking = false;

  const renewAll = () =>
    Promise.all(
      [...leases].map(async (lease) => {
        let renewed = false;
        try {
          const answer = ledger.renew?.(lease.key, lease.token);
          renewed = answer !== undefined && (await deadline.bound('renew', answer)) === true;
        } catch {
          renewed = false;
        }
        // A lease settled meanwhile (the write completed) says nothing by its renewal.
        if (!renewed && leases.has(lease)) {
          lease.lost = true;
          leases.delete(lease);
        }
      }),
    );

  const tick = async () => {
    ticking = true;
    try {
      for (;;) {
        await clock.sleep(intervalMs, undefined, { unref: true });
        if (leases.size === 0) return;
        await renewAll();
      }
    } finally {
      ticking = false;
    }
  };

  return {
    get held() {
      return leases.size;
    },
    hold(key, token) {
      if (!ledger.renew) return done;
      const lease = new Lease(key, token, leases);
      leases.add(lease);
      if (!ticking) void tick().catch(() => {});
      return lease;
    },
  };
}

/** A third of the ledger's lease (at least 1 ms), or of `defaultLeaseMs` when it has none. */
export function leaseRenewalIntervalMs(ledger: Ledger): number {
  const leaseMs = ledger.leaseMs ?? defaultLeaseMs;
  const usable = Number.isFinite(leaseMs) && leaseMs > 0 ? leaseMs : defaultLeaseMs;
  return Math.max(1, Math.floor(usable / 3));
}
