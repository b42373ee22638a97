import { describe, expect, it } from 'vitest';
import { InvalidOptionsError } from '../errors.js';
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

  it('keeps separate instances apart', async () => {
    const a = new MemoryLedger();
    const b = new MemoryLedger();
    await a.claim({ key: 'k', payloadHash: 'h' });
    expect((await b.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
  });
});
