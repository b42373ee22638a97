import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { InvalidOptionsError, LedgerUnavailableError } from '@recourse/core';
import { createFakeClock } from '@recourse/core/testing';
import { Pool } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresLedger, type PostgresLedgerOptions } from './index.js';

const connectionString =
  process.env.RECOURSE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new Pool({ connectionString });
const opened: PostgresLedger[] = [];
const tables: string[] = [];
const schemas: string[] = [];

function uniqueName(): string {
  return `rtest_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

function open(options: Partial<PostgresLedgerOptions> = {}): PostgresLedger {
  const table = options.table ?? uniqueName();
  tables.push(table);
  const ledger = new PostgresLedger({
    connectionString,
    table,
    ...options,
  } as PostgresLedgerOptions);
  opened.push(ledger);
  return ledger;
}

afterAll(async () => {
  for (const ledger of opened) await ledger.close();
  for (const t of tables) {
    await admin.query(`DROP TABLE IF EXISTS "${t}", "${t}_counters", "${t}_denials"`);
  }
  for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await admin.end();
});

describe('PostgresLedger when PostgreSQL is down', () => {
  it('rejects quickly with LedgerUnavailableError naming the store, never acquiring', async () => {
    const ledger = open({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
    const started = Date.now();
    const claim = ledger.claim({ key: 'k', payloadHash: 'h' });
    await expect(claim).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(claim).rejects.toMatchObject({ store: 'postgres', code: 'LEDGER_UNAVAILABLE' });
    await expect(claim).rejects.toThrow(/ECONNREFUSED/);
    await expect(ledger.migrate()).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.listDenials('run')).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('survives a backend dying under an idle pooled client, and recovers', async () => {
    const name = uniqueName();
    const ledger = open({ connectionString: `${connectionString}?application_name=${name}` });
    await ledger.incrementCounter('run', 'n');
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    // Round trips on another connection until the backend is gone give the pool's idle
    // client time to see its socket close (and emit 'error') before the next call.
    for (let gone = false; !gone; ) {
      const left = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      gone = left.rows[0]?.n === 0;
    }
    await admin.query('SELECT 1');
    // Either the dead client is dropped first, or one call fails as unavailable: never a crash.
    const first = await ledger.incrementCounter('run', 'n').catch((error: unknown) => error);
    if (typeof first !== 'number') expect(first).toBeInstanceOf(LedgerUnavailableError);
    expect(await ledger.getCounter('run', 'n')).toBe(typeof first === 'number' ? 2 : 1);
  });
});

describe('PostgresLedger options', () => {
  it.each([['http://127.0.0.1/test'], [''], ['not a connection string']])(
    'rejects the connectionString %j naming the field',
    (bad) => {
      const attempt = () => new PostgresLedger({ connectionString: bad });
      expect(attempt).toThrow(InvalidOptionsError);
      expect(attempt).toThrow(expect.objectContaining({ field: 'connectionString' }));
    },
  );

  it.each([['ledger"; DROP TABLE x; --'], ['Ledger'], ['a-b'], ['1abc'], ['x'.repeat(49)]])(
    'rejects the table name %j naming the field',
    (table) => {
      expect(() => new PostgresLedger({ connectionString, table })).toThrow(
        expect.objectContaining({ name: 'InvalidOptionsError', field: 'table' }),
      );
    },
  );

  it('rejects a bad schema, a bad leaseMs, and pool with connectionString together', () => {
    expect(() => new PostgresLedger({ connectionString, schema: 'public.x' })).toThrow(
      expect.objectContaining({ field: 'schema' }),
    );
    expect(() => new PostgresLedger({ connectionString, leaseMs: -1 })).toThrow(
      expect.objectContaining({ field: 'leaseMs' }),
    );
    const both = { connectionString, pool: admin } as unknown as PostgresLedgerOptions;
    expect(() => new PostgresLedger(both)).toThrow(
      expect.objectContaining({ field: 'connectionString' }),
    );
  });
});

describe('PostgresLedger with a pool you own', () => {
  it('does not end your pool on close()', async () => {
    const pool = new Pool({ connectionString });
    const table = uniqueName();
    tables.push(table);
    const ledger = new PostgresLedger({ pool, table });
    expect((await ledger.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
    await ledger.close();
    expect(pool.ended).toBe(false);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });
});

describe('PostgresLedger tables', () => {
  it('creates its tables inside a named schema, and migrate() is idempotent', async () => {
    const schema = uniqueName();
    schemas.push(schema);
    const ledger = open({ schema, table: 'ledger' });
    await ledger.migrate();
    await ledger.migrate();
    await ledger.addDenial('run', { resource: 'r', tool: 't', reason: 'FORBIDDEN', at: 1 });
    const { rows } = await admin.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual(['ledger', 'ledger_counters', 'ledger_denials']);
  });

  it('works for a role that may only read and write rows once the tables exist', async () => {
    const table = uniqueName();
    const role = uniqueName();
    await open({ table }).migrate();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      const all = `"${table}", "${table}_counters", "${table}_denials"`;
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${all} TO ${role}`);
      await admin.query(`GRANT USAGE ON SEQUENCE "${table}_denials_id_seq" TO ${role}`);
      const url = new URL(connectionString);
      url.username = role;
      const limited = open({ connectionString: url.href, table });
      // The role really cannot create: a new table name fails as unavailable (42501).
      const other = open({ connectionString: url.href, table: uniqueName() });
      await expect(other.migrate()).rejects.toMatchObject({
        store: 'postgres',
        cause: expect.objectContaining({ code: '42501' }),
      });
      expect((await limited.claim({ key: 'k', payloadHash: 'h' })).status).toBe('acquired');
      await limited.addDenial('run', { resource: 'r', tool: 't', reason: 'FORBIDDEN', at: 1 });
      await limited.close();
      await other.close();
    } finally {
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
    }
  });

  it('stores lease times from the injected clock', async () => {
    const clock = createFakeClock(1_767_225_600_000);
    const ledger = open({ clock, leaseMs: 250 });
    await ledger.claim({ key: 'k', payloadHash: 'h' });
    expect(await ledger.get('k')).toMatchObject({
      state: 'in_flight',
      leaseExpiresAt: 1_767_225_600_250,
      updatedAt: 1_767_225_600_000,
    });
  });
});

describe('PostgresLedger sweep', () => {
  it('deletes only records past retention (in-flight ones aged from their lease end)', async () => {
    const clock = createFakeClock(1_000_000);
    const ledger = open({ clock, leaseMs: 100, retentionMs: 1_000 });
    const done = await ledger.claim({ key: 'done', payloadHash: 'h' });
    if (done.status !== 'acquired') throw new Error('claim failed');
    await ledger.complete('done', done.token, 1);
    await ledger.claim({ key: 'stuck', payloadHash: 'h' });
    await clock.advance(950);
    await ledger.claim({ key: 'fresh', payloadHash: 'h' });
    await clock.advance(50);
    // done: 1 000 ms after completion (gone); stuck: 900 ms after its lease (kept).
    expect(await ledger.sweep()).toBe(1);
    await clock.advance(100);
    expect(await ledger.sweep()).toBe(1);
    expect(await ledger.get('done')).toBeUndefined();
    expect(await ledger.get('stuck')).toBeUndefined();
    expect(await ledger.get('fresh')).toMatchObject({ state: 'in_flight' });
  });
});

describe('PostgresLedger across separate pools', () => {
  it('creates a fresh table once and lets one of 8 pools acquire each of 50 keys', async () => {
    const table = uniqueName();
    const clock = createFakeClock(0);
    const workers = Array.from({ length: 8 }, () => open({ clock, table }));
    const keys = Array.from({ length: 50 }, (_, i) => `key-${i}`);
    const results = await Promise.all(
      workers.flatMap((worker) => keys.map((key) => worker.claim({ key, payloadHash: 'h' }))),
    );
    const acquired = results.filter((r) => r.status === 'acquired');
    expect(acquired).toHaveLength(50);
    expect(results.filter((r) => r.status === 'in_flight')).toHaveLength(50 * 7);
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${table}"`);
    expect(rows[0]).toEqual({ n: 50 });
  });
});

describe('PostgresLedger against a server that accepts connections and never answers', () => {
  it('gives up within its timeouts (about 5 s) with LedgerUnavailableError', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const ledger = open({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
      const started = Date.now();
      await expect(ledger.claim({ key: 'k', payloadHash: 'h' })).rejects.toMatchObject({
        name: 'LedgerUnavailableError',
        store: 'postgres',
      });
      expect(Date.now() - started).toBeLessThan(8_000);
      await ledger.close();
    } finally {
      server.close();
    }
  });
});
