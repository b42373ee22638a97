import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidOptionsError, LedgerUnavailableError, RecourseError } from '../errors.js';
import { createFakeClock } from '../testing/fake-clock.js';
import { describeLedgerContract } from '../testing/ledger-contract.js';
import { SqliteLedger } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Three handles per test: separate connections to one file, like workers sharing it.
describeLedgerContract(
  'SqliteLedger (file)',
  ({ clock, leaseMs, retentionMs, namespace }) =>
    new SqliteLedger({ path: join(dir, `${namespace}.db`), clock, leaseMs, retentionMs }),
  { handles: 3 },
);

describeLedgerContract(
  'SqliteLedger (:memory:)',
  ({ clock, leaseMs, retentionMs }) =>
    new SqliteLedger({ path: ':memory:', clock, leaseMs, retentionMs }),
);

describe('SqliteLedger', () => {
  it('keeps results, doubt, counters and denials across a restart', async () => {
    const path = join(dir, 'restart.db');
    const clock = createFakeClock(1_000);
    const first = new SqliteLedger({ path, clock });
    const claim = await first.claim({ key: 'refund:p-42', payloadHash: 'h' });
    if (claim.status !== 'acquired') throw new Error(`unexpected ${claim.status}`);
    await first.complete('refund:p-42', claim.token, { refundId: 'r_1', amount: 1999 });
    const doubt = await first.claim({ key: 'email:u-1', payloadHash: 'h' });
    if (doubt.status !== 'acquired') throw new Error(`unexpected ${doubt.status}`);
    await first.markUncertain('email:u-1', doubt.token, 'timeout after send');
    await first.incrementCounter('run-1', 'repairs:fp', 2);
    await first.addDenial('run-1', {
      resource: 'r',
      capability: 'write',
      tool: 't',
      reason: 'x',
      at: 5,
    });
    await first.close();

    const second = new SqliteLedger({ path, clock });
    expect(await second.claim({ key: 'refund:p-42', payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { refundId: 'r_1', amount: 1999 },
    });
    expect(await second.claim({ key: 'email:u-1', payloadHash: 'h' })).toMatchObject({
      status: 'acquired',
      previous: 'uncertain',
    });
    expect(await second.getCounter('run-1', 'repairs:fp')).toBe(2);
    expect(await second.listDenials('run-1')).toEqual([
      { resource: 'r', capability: 'write', tool: 't', reason: 'x', at: 5 },
    ]);
    await second.close();
  });

  it('creates its tables with a schema version row, in WAL mode', async () => {
    const path = join(dir, 'schema.db');
    await new SqliteLedger({ path, tablePrefix: 'agent_' }).close();
    const db = new DatabaseSync(path);
    expect(db.prepare("SELECT value FROM agent_meta WHERE name = 'schema_version'").get()).toEqual(
      expect.objectContaining({ value: '1' }),
    );
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual(
      expect.objectContaining({ journal_mode: 'wal' }),
    );
    db.close();
  });

  it('keeps ledgers with different table prefixes in one file apart', async () => {
    const path = join(dir, 'prefixes.db');
    const a = new SqliteLedger({ path, tablePrefix: 'a_' });
    const b = new SqliteLedger({ path, tablePrefix: 'b_' });
    await a.claim({ key: 'k', payloadHash: 'h' });
    expect((await b.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
    await a.close();
    await b.close();
  });

  it('refuses a file written by a newer schema', async () => {
    const path = join(dir, 'future.db');
    await new SqliteLedger({ path }).close();
    const db = new DatabaseSync(path);
    db.exec("UPDATE recourse_meta SET value = '99' WHERE name = 'schema_version'");
    db.close();
    expect(() => new SqliteLedger({ path })).toThrow(/schema version 99/);
  });

  it('reports a database it cannot open or use as LedgerUnavailableError', async () => {
    const error = captureThrow(() => new SqliteLedger({ path: join(dir, 'missing', 'x.db') }));
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    expect(RecourseError.isInstance(error) && error.code).toBe('LEDGER_UNAVAILABLE');
    expect((error as Error).message).toMatch(/^sqlite ledger unavailable: open: unable to open/);

    const closed = new SqliteLedger({ path: ':memory:' });
    await closed.close();
    await expect(closed.claim({ key: 'k', payloadHash: 'h' })).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
    await expect(closed.incrementCounter('r', 'n')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });

  it('fails a claim with LedgerUnavailableError while another connection holds the write lock', async () => {
    const path = join(dir, 'locked.db');
    const ledger = new SqliteLedger({ path, busyTimeoutMs: 0 });
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    await expect(ledger.claim({ key: 'k', payloadHash: 'h' })).rejects.toThrow(
      /sqlite ledger unavailable: claim: database is locked/,
    );
    other.exec('ROLLBACK');
    other.close();
    // The failed claim left nothing behind: the next one acquires.
    expect((await ledger.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
    await ledger.close();
  });

  it('rejects invalid options, naming the field', () => {
    expect(() => new SqliteLedger({ path: '' })).toThrow(InvalidOptionsError);
    expect(() => new SqliteLedger({ path: ':memory:', tablePrefix: 'x; DROP' })).toThrow(
      /tablePrefix/,
    );
    expect(() => new SqliteLedger({ path: ':memory:', leaseMs: -1 })).toThrow(/leaseMs/);
  });

  it('passes a bad per-claim leaseMs through as InvalidOptionsError, not as unavailability', async () => {
    const ledger = new SqliteLedger({ path: ':memory:' });
    await expect(
      ledger.claim({ key: 'k', payloadHash: 'h', leaseMs: Number.NaN }),
    ).rejects.toBeInstanceOf(InvalidOptionsError);
    expect(await ledger.get('k')).toBeUndefined();
    await ledger.close();
  });
});

function captureThrow(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
