import { describe, expect, it } from 'vitest';
import { InvalidOptionsError } from '../errors.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { describeLedgerContract } from '../testing/ledger-contract.js';
import { MemoryLedger } from './memory-ledger.js';

describeLedgerContract('MemoryLedger', ({ clock, leaseMs, retentionMs }) => {
  return new MemoryLedger({ clock, leaseMs, retentionMs });
});

describe('MemoryLedger', () => {
  it('is named memory', () => {
    expect(new MemoryLedger().name).toBe('memory');
  });

  it('rejects a lease that is not a positive duration, naming the field', () => {
    expect(() => new MemoryLedger({ leaseMs: 0 })).toThrow(InvalidOptionsError);
    expect(() => new MemoryLedger({ retentionMs: Number.NaN })).toThrow(/retentionMs/);
  });

  it('drops records past retention from memory without anyone reading them', async () => {
    const clock = createFakeClock();
    const ledger = new MemoryLedger({ clock, retentionMs: 10 });
    const first = await ledger.claim({ key: 'old', payloadHash: 'h' });
    if (first.status !== 'acquired') throw new Error(first.status);
    await ledger.complete('old', first.token, 'x');
    await clock.advance(11);
    for (let i = 0; i < 1_000; i++) await ledger.claim({ key: `k${i}`, payloadHash: 'h' });
    // Only the sweep can have removed it: reading through get() would delete it too.
    expect(ledger.size).toBe(1_000);
  });

  it('rejects a claim whose own leaseMs is not a positive duration', async () => {
    const ledger = new MemoryLedger();
    await expect(ledger.claim({ key: 'k', payloadHash: 'h', leaseMs: 0 })).rejects.toThrow(
      InvalidOptionsError,
    );
    expect(await ledger.get('k')).toBeUndefined();
  });

  it('keeps separate instances apart', async () => {
    const a = new MemoryLedger();
    const b = new MemoryLedger();
    await a.claim({ key: 'k', payloadHash: 'h' });
    expect((await b.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
  });
});
