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
  it('keeps results, doubt, repair counts and facts across a restart', async () => {
    const path = join(dir, 'restart.db');
    const clock = createFakeClock(1_000);
    const first = new SqliteLedger({ path, clock });
    const claim = await first.claim({ key: 'refund:p-42', payloadHash: 'h' });
    if (claim.status !== 'acquired') throw new Error(`unexpected ${claim.status}`);
    // Odd spacing and key order: the store must hand back the caller's text unchanged.
    const json = '{ "refundId": "r_1",\n  "amount": 1999, "a": "\\u00e9" }';
    await first.complete('refund:p-42', claim.token, { json });
    const unstorable = await first.claim({ key: 'export:1', payloadHash: 'h' });
    if (unstorable.status !== 'acquired') throw new Error(`unexpected ${unstorable.status}`);
    await first.complete('export:1', unstorable.token, { unstorable: 'BigInt in the result' });
    const doubt = await first.claim({ key: 'email:u-1', payloadHash: 'h' });
    if (doubt.status !== 'acquired') throw new Error(`unexpected ${doubt.status}`);
    await first.markUncertain('email:u-1', doubt.token, 'timeout after send');
    await first.addRepair('run-1', 'fp');
    await first.addRepair('run-1', 'fp');
    const denial = { resource: 'r', capability: 'write', tool: 't', reason: 'x', at: 5 };
    await first.addFact('run-1', 'denial', 'r=write', denial);
    await first.close();

    const second = new SqliteLedger({ path, clock });
    expect(await second.claim({ key: 'refund:p-42', payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json },
    });
    expect(await second.claim({ key: 'export:1', payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { unstorable: 'BigInt in the result' },
    });
    expect(await second.claim({ key: 'email:u-1', payloadHash: 'h' })).toMatchObject({
      status: 'acquired',
      previous: 'uncertain',
    });
    expect(await second.getRepairs('run-1', 'fp')).toBe(2);
    expect(await second.listFacts('run-1')).toEqual({
      denial: [denial],
      grant: [],
      poison: [],
      escalation: [],
    });
    await second.close();
  });

  it('brings a version 1 file up to date, keeping its completed results', async () => {
    const path = join(dir, 'version1.db');
    const db = new DatabaseSync(path);
    db.exec(`
      CREATE TABLE recourse_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO recourse_meta VALUES ('schema_version', '1');
      CREATE TABLE recourse_records (key TEXT PRIMARY KEY, state TEXT NOT NULL,
        payload_hash TEXT NOT NULL, token TEXT NOT NULL, result TEXT, lease_expires_at INTEGER,
        note TEXT, in_doubt INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      CREATE TABLE recourse_counters (run_id TEXT NOT NULL, name TEXT NOT NULL,
        value INTEGER NOT NULL, PRIMARY KEY (run_id, name));
    `);
    db.prepare('INSERT INTO recourse_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      'refund:p-1',
      'completed',
      'h',
      'tok',
      '{"refundId":"r_9"}',
      null,
      null,
      0,
      1_000,
    );
    db.close();
    const clock = createFakeClock(2_000);
    const ledger = new SqliteLedger({ path, clock });
    expect(await ledger.claim({ key: 'refund:p-1', payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json: '{"refundId":"r_9"}' },
    });
    expect(await ledger.addRepair('run', 'fp')).toBe(1);
    await ledger.close();
    const check = new DatabaseSync(path);
    expect(
      check.prepare("SELECT value FROM recourse_meta WHERE name = 'schema_version'").get(),
    ).toEqual(expect.objectContaining({ value: '2' }));
    check.close();
  });

  it('creates its tables with a schema version row, in WAL mode', async () => {
    const path = join(dir, 'schema.db');
    await new SqliteLedger({ path, tablePrefix: 'agent_' }).close();
    const db = new DatabaseSync(path);
    expect(db.prepare("SELECT value FROM agent_meta WHERE name = 'schema_version'").get()).toEqual(
      expect.objectContaining({ value: '2' }),
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
    await expect(closed.addRepair('r', 'fp')).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(closed.listFacts('r')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });

  it("names the file, and a directory that does not exist, with SQLite's error as cause", () => {
    const path = join(dir, 'no-such-directory', 'ledger.db');
    const error = captureThrow(() => new SqliteLedger({ path }));
    expect(LedgerUnavailableError.isInstance(error)).toBe(true);
    const unavailable = error as LedgerUnavailableError;
    expect(unavailable.target).toBe(path);
    expect(unavailable.message).toBe(
      `sqlite ledger unavailable: open: unable to open database file: the directory ${join(dir, 'no-such-directory')} does not exist (${path})`,
    );
    expect((unavailable.cause as Error).message).toBe('unable to open database file');
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

describe('SqliteLedger input checks', () => {
  it('rejects a result that is not text and a fact it could never list, naming the field', async () => {
    const ledger = new SqliteLedger({ path: ':memory:' });
    const claim = await ledger.claim({ key: 'k', payloadHash: 'h' });
    if (claim.status !== 'acquired') throw new Error(`unexpected ${claim.status}`);
    const notText = { json: { id: 1 } } as unknown as { json: string };
    await expect(ledger.complete('k', claim.token, notText)).rejects.toMatchObject({
      name: 'InvalidOptionsError',
      field: 'result.json',
    });
    expect(await ledger.get('k')).toMatchObject({ state: 'in_flight' });
    const bad = ledger.addFact('run', 'verdict' as 'denial', 'x', {
      resource: 'r',
      tool: 't',
      reason: 'x',
      at: 1,
    });
    await expect(bad).rejects.toMatchObject({ name: 'InvalidOptionsError', field: 'kind' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(ledger.addFact('run', 'denial', 'y', cyclic as never)).rejects.toMatchObject({
      field: 'fact',
    });
    expect(await ledger.listFacts('run')).toMatchObject({ denial: [] });
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
