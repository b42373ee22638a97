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
    await ledger.complete('old', first.token, { json: '"x"' });
    await clock.advance(11);
    for (let i = 0; i < 1_000; i++) await ledger.claim({ key: `k${i}`, payloadHash: 'h' });
    // Only the sweep can have removed it: reading through get() would delete it too.
    expect(ledger.size).toBe(1_000);
  });

  it('sweeps a bounded slice per claim: old records go as claims pass, without a full scan', async () => {
    const clock = createFakeClock();
    const ledger = new MemoryLedger({ clock, retentionMs: 10 });
    for (let i = 0; i < 100; i++) {
      const claimed = await ledger.claim({ key: `old${i}`, payloadHash: 'h' });
      if (claimed.status === 'acquired') await ledger.complete(`old${i}`, claimed.token, {});
    }
    await clock.advance(11);
    await ledger.claim({ key: 'new0', payloadHash: 'h' });
    // One claim looks at a few records only, not all hundred.
    expect(ledger.size).toBeGreaterThan(90);
    for (let i = 1; i < 60; i++) await ledger.claim({ key: `new${i}`, payloadHash: 'h' });
    expect(ledger.size).toBe(60);
  });

  it('keeps at most maxRecords, dropping the oldest completed records, never those in doubt', async () => {
    const ledger = new MemoryLedger({ maxRecords: 3 });
    const doubt = await ledger.claim({ key: 'doubt', payloadHash: 'h' });
    if (doubt.status === 'acquired') await ledger.markUncertain('doubt', doubt.token);
    for (const key of ['a', 'b', 'c']) {
      const claimed = await ledger.claim({ key, payloadHash: 'h' });
      if (claimed.status === 'acquired') await ledger.complete(key, claimed.token, {});
    }
    expect(ledger.size).toBe(3);
    expect(await ledger.get('doubt')).toMatchObject({ state: 'uncertain' });
    expect(await ledger.get('a')).toBeUndefined();
    expect(await ledger.get('c')).toMatchObject({ state: 'completed' });
    expect(() => new MemoryLedger({ maxRecords: 0 })).toThrow(/maxRecords/);
  });

  it('tells watchers of a run about a new fact at once, and not about a repeat', async () => {
    const ledger = new MemoryLedger();
    let changes = 0;
    const watch = ledger.watchFacts('r', () => {
      changes += 1;
    });
    const denial = { resource: 'x', tool: 't', reason: 'HTTP_403', at: 1 };
    void ledger.addFact('r', 'denial', 'x', denial);
    expect(changes).toBe(1); // synchronous: before the add's promise even settles
    await ledger.addFact('r', 'denial', 'x', denial);
    await ledger.addFact('other', 'denial', 'x', denial);
    expect(changes).toBe(1);
    watch.close();
    await ledger.addFact('r', 'denial', 'y', denial);
    expect(changes).toBe(1);
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
