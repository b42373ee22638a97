import { afterEach, beforeEach, describe } from 'vitest';
import type { Ledger } from '../ledger/ledger.js';
import { createFakeClock, type FakeClock } from './fake-clock.js';
import { describeClaimContract } from './ledger-contract-claims.js';
import { describeConcurrencyContract } from './ledger-contract-concurrency.js';
import { describeRenewalContract } from './ledger-contract-renewal.js';
import { describeResultContract } from './ledger-contract-results.js';
import { describeRunStateContract } from './ledger-contract-run-state.js';

export interface LedgerFactoryContext {
  /** Drives leases and retention: pass it to the store as `clock`. */
  clock: FakeClock;
  leaseMs: number;
  retentionMs: number;
  /**
   * Unique per test, `[a-z][a-z0-9_]*`, at most 24 characters: use it as a table prefix,
   * key prefix or database name so that tests sharing a server never see each other.
   */
  namespace: string;
}

export type LedgerFactory = (context: LedgerFactoryContext) => Ledger | Promise<Ledger>;

export interface LedgerContractOptions {
  /**
   * How many handles the concurrency tests open on one store. Above 1, the factory is
   * called that many times with the same context and every handle must see the same
   * data (separate connections or clients), like workers sharing a server. Default 1.
   */
  handles?: number | undefined;
  /** Concurrent claims of one key in the race tests. Default 100. */
  concurrency?: number | undefined;
}

/** The state of one contract test. `ledger` is the first handle. */
export interface LedgerContractHarness {
  readonly clock: FakeClock;
  readonly ledger: Ledger;
  readonly context: LedgerFactoryContext;
  /** Every handle the test uses, `ledger` first (see `LedgerContractOptions.handles`). */
  handles(): Promise<Ledger[]>;
}

/** 2026-01-01T00:00:00Z: realistic epoch milliseconds, so stores see real-sized numbers. */
export const contractStartTime = 1_767_225_600_000;
export const contractLeaseMs = 1_000;
export const contractRetentionMs = 60_000;

let namespaceCounter = 0;

function createNamespace(): string {
  const random = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  namespaceCounter += 1;
  return `rct_${random}_${namespaceCounter}`;
}

/**
 * The behaviour every `Ledger` store must have. Call it from the store's test file:
 *
 * ```ts
 * describeLedgerContract('MemoryLedger', ({ clock, leaseMs, retentionMs }) =>
 *   new MemoryLedger({ clock, leaseMs, retentionMs }));
 * ```
 *
 * Each test gets a fresh fake clock and namespace; every ledger the factory returned is
 * closed after the test.
 */
export function describeLedgerContract(
  name: string,
  factory: LedgerFactory,
  options: LedgerContractOptions = {},
): void {
  const handleCount = options.handles ?? 1;
  const concurrency = options.concurrency ?? 100;
  let current: { harness: LedgerContractHarness; opened: Ledger[] } | undefined;

  const harness = (): LedgerContractHarness => {
    if (!current) throw new Error('The ledger contract harness is used outside a test');
    return current.harness;
  };

  describe(`${name} (ledger contract)`, () => {
    beforeEach(async () => {
      const clock = createFakeClock(contractStartTime);
      const context: LedgerFactoryContext = {
        clock,
        leaseMs: contractLeaseMs,
        retentionMs: contractRetentionMs,
        namespace: createNamespace(),
      };
      const opened: Ledger[] = [await factory(context)];
      const handles = async () => {
        while (opened.length < handleCount) opened.push(await factory(context));
        return [...opened];
      };
      current = { harness: { clock, ledger: opened[0]!, context, handles }, opened };
    });

    afterEach(async () => {
      const opened = current?.opened ?? [];
      current = undefined;
      for (const ledger of opened) await ledger.close?.();
    });

    describeClaimContract(harness);
    describeRenewalContract(harness);
    describeRunStateContract(harness);
    describeResultContract(harness);
    describeConcurrencyContract(harness, { concurrency });
  });
}
