import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { InvalidOptionsError, LedgerUnavailableError } from '@recourse/core/store';
import { createFakeClock, startTcpProxy } from '@recourse/core/testing';
import { DatabaseError, Pool } from 'pg';
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
    await admin.query(`DROP TABLE IF EXISTS "${t}", "${t}_repairs", "${t}_facts"`);
  }
  for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await admin.end();
});

describe('PostgresLedger when PostgreSQL is down', () => {
  it('rejects with LedgerUnavailableError naming the store, never acquiring', async () => {
    const ledger = open({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
    const claim = ledger.claim({ key: 'k', payloadHash: 'h' });
    await expect(claim).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(claim).rejects.toMatchObject({ store: 'postgres', code: 'LEDGER_UNAVAILABLE' });
    await expect(claim).rejects.toThrow(/ECONNREFUSED/);
    await expect(ledger.migrate()).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.listFacts('run')).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(ledger.addRepair('run', 'fp')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });

  it('survives a backend dying under an idle pooled client, and recovers', async () => {
    const name = uniqueName();
    const ledger = open({ connectionString: `${connectionString}?application_name=${name}` });
    await ledger.addRepair('run', 'fp');
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
    const first = await ledger.addRepair('run', 'fp').catch((error: unknown) => error);
    if (typeof first !== 'number') expect(first).toBeInstanceOf(LedgerUnavailableError);
    expect(await ledger.getRepairs('run', 'fp')).toBe(typeof first === 'number' ? 2 : 1);
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
    expect(() => new PostgresLedger({ connectionString, watchHeartbeatMs: Number.NaN })).toThrow(
      expect.objectContaining({ field: 'watchHeartbeatMs' }),
    );
    const both = { connectionString, pool: admin } as unknown as PostgresLedgerOptions;
    expect(() => new PostgresLedger(both)).toThrow(
      expect.objectContaining({ field: 'connectionString' }),
    );
  });
});

describe('PostgresLedger close()', () => {
  it('leaves none of its connections open once it resolves, the watch connection included', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap');
    const before = sockets().length;
    const ledger = open();
    // Four connections at once, and the watch's own.
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => ledger.claim({ key: `k-${i}`, payloadHash: 'h' })),
    );
    const watch = ledger.watchFacts('run-close', () => {});
    for (let turn = 0; turn < 10_000 && sockets().length < before + 5; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(sockets().length).toBeGreaterThanOrEqual(before + 4);
    watch.close();
    await ledger.close();
    expect(sockets()).toHaveLength(before);
  });
});

describe('PostgresLedger behind a pooler that refuses named statements', () => {
  it('sends every statement unnamed from the first refusal on; the refused one is sent again', async () => {
    const pool = new Pool({ connectionString });
    const table = uniqueName();
    tables.push(table);
    const named: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    // What PgBouncer in transaction mode (before 1.21) answers a named statement that was
    // prepared on another server session: the statement did not run.
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (
      config,
      ...rest
    ) => {
      if (typeof config === 'object' && config !== null && 'name' in config) {
        named.push(String((config as { name: unknown }).name));
        const refused = new DatabaseError('prepared statement "s1" does not exist', 0, 'error');
        refused.code = '26000';
        return Promise.reject(refused);
      }
      return query(config, ...rest);
    };
    const ledger = new PostgresLedger({ pool, table });
    const claimed = await ledger.claim({ key: 'k', payloadHash: 'h' });
    expect(claimed.status).toBe('acquired');
    if (claimed.status !== 'acquired') throw new Error('not acquired');
    await ledger.complete('k', claimed.token, { json: '{"ok":true}' });
    expect(await ledger.get('k')).toMatchObject({
      state: 'completed',
      result: { json: '{"ok":true}' },
    });
    expect(named).toHaveLength(1);
    await ledger.close();
    await pool.end();
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
    await ledger.addFact('run', 'denial', 'r', { resource: 'r', tool: 't', reason: 'X', at: 1 });
    const { rows } = await admin.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual(['ledger', 'ledger_facts', 'ledger_repairs']);
  });

  it('works for a role that may only read and write rows once the tables exist', async () => {
    const table = uniqueName();
    const role = uniqueName();
    await open({ table }).migrate();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      const all = `"${table}", "${table}_repairs", "${table}_facts"`;
      await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${all} TO ${role}`);
      await admin.query(`GRANT USAGE ON SEQUENCE "${table}_facts_seq_seq" TO ${role}`);
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
      await limited.addFact('run', 'denial', 'r', { resource: 'r', tool: 't', reason: 'X', at: 1 });
      expect(await limited.addRepair('run', 'fp')).toBe(1);
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
    await ledger.complete('done', done.token, { json: '1' });
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
  it('gives up with LedgerUnavailableError instead of waiting for an answer forever', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const ledger = open({ connectionString: `postgres://postgres@127.0.0.1:${port}/test` });
      await expect(ledger.claim({ key: 'k', payloadHash: 'h' })).rejects.toMatchObject({
        name: 'LedgerUnavailableError',
        store: 'postgres',
      });
      await ledger.close();
    } finally {
      server.close();
    }
  });
});

describe('PostgresLedger tables of an earlier version', () => {
  it('turns a jsonb result column into result text, keeping completed results', async () => {
    const table = uniqueName();
    tables.push(table);
    await admin.query(`CREATE TABLE "${table}" (
      key text PRIMARY KEY, state text NOT NULL, payload_hash text NOT NULL, token text NOT NULL,
      lease_expires_at bigint, result jsonb, note text, in_doubt boolean NOT NULL DEFAULT false,
      previous text, updated_at bigint NOT NULL)`);
    await admin.query(
      `INSERT INTO "${table}" (key, state, payload_hash, token, result, updated_at)
       VALUES ('refund:p-1', 'completed', 'h', 't', '{"b": 1, "a": [true]}', 1000)`,
    );
    const ledger = open({ table, clock: createFakeClock(2_000) });
    expect(await ledger.claim({ key: 'refund:p-1', payloadHash: 'h' })).toEqual({
      status: 'completed',
      result: { json: '{"a": [true], "b": 1}' },
    });
    const { rows } = await admin.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = $1
         AND column_name LIKE 'result%' ORDER BY 1`,
      [table],
    );
    expect(rows.map((r) => r.column_name)).toEqual(['result_json', 'result_unstorable']);
  });
});

/** Polls real time until `check` passes: notifications arrive on their own schedule. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 8_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Backends of `name` that listen (their last statement was the LISTEN). */
async function listeners(name: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
    [name],
  );
  return rows[0]?.n ?? 0;
}

describe('PostgresLedger fact watches', () => {
  const denial = { resource: 'r', tool: 't', reason: 'HTTP_403', at: 1 };

  it('after its listening backend is terminated, listens again, calls onChange and delivers new facts', async () => {
    const name = uniqueName();
    const table = uniqueName();
    const ledger = open({
      connectionString: `${connectionString}?application_name=${name}`,
      table,
      watchHeartbeatMs: 60_000,
    });
    const writer = open({ table });
    let changes = 0;
    const watch = ledger.watchFacts('run', () => {
      changes += 1;
    });
    await eventually(() => watch.live);
    const connected = changes;
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
      [name],
    );
    expect(killed.rowCount).toBe(1);
    // Facts may have been added while nobody listened: the new LISTEN says so.
    await eventually(() => changes > connected && watch.live);
    const before = changes;
    expect(await writer.addFact('run', 'denial', 'r', denial)).toBe(true);
    await eventually(() => changes > before);
    // A fact that was known already notifies no one; a later one on another run is the
    // proof of delivery order (notifications arrive in commit order).
    const after = changes;
    expect(await writer.addFact('run', 'denial', 'r', denial)).toBe(false);
    let other = 0;
    const otherWatch = ledger.watchFacts('other', () => {
      other += 1;
    });
    await eventually(() => otherWatch.live);
    const otherBefore = other;
    await writer.addFact('other', 'denial', 'r', denial);
    await eventually(() => other > otherBefore);
    expect(changes).toBe(after);
    watch.close();
    otherWatch.close();
  });

  it('stops being live when its connection goes silent, and recovers when the network is back', async () => {
    const target = new URL(connectionString);
    const proxy = await startTcpProxy(Number(target.port || 5432));
    try {
      const via = new URL(connectionString);
      via.hostname = '127.0.0.1';
      via.port = String(proxy.port);
      const table = uniqueName();
      const ledger = open({ connectionString: via.href, table, watchHeartbeatMs: 100 });
      const writer = open({ table });
      let changes = 0;
      const watch = ledger.watchFacts('run', () => {
        changes += 1;
      });
      await eventually(() => watch.live);
      proxy.freeze();
      // No FIN, no RST: only the unanswered heartbeat shows the connection is gone.
      await eventually(() => !watch.live);
      const before = changes;
      expect(await writer.addFact('run', 'denial', 'r', denial)).toBe(true);
      proxy.thaw();
      await eventually(() => watch.live && changes > before);
      expect((await ledger.listFacts('run')).denial).toEqual([denial]);
      watch.close();
    } finally {
      await proxy.close();
    }
  });

  it('holds one connection for all its watches, and gives it back when the last one closes', async () => {
    const name = uniqueName();
    const pool = new Pool({ connectionString, application_name: name });
    const table = uniqueName();
    tables.push(table);
    const ledger = new PostgresLedger({ pool, table, watchHeartbeatMs: 60_000 });
    const watches = ['a', 'b', 'c'].map((run) => ledger.watchFacts(run, () => {}));
    for (const watch of watches) await eventually(() => watch.live);
    expect(await listeners(name)).toBe(1);
    for (const watch of watches.slice(0, 2)) watch.close();
    expect(watches[2]?.live).toBe(true);
    watches[2]?.close();
    expect(watches[2]?.live).toBe(false);
    await eventually(async () => (await listeners(name)) === 0);
    // A watch after that listens again; close() ends it and leaves your pool open.
    const again = ledger.watchFacts('a', () => {});
    await eventually(() => again.live);
    await ledger.close();
    expect(again.live).toBe(false);
    await eventually(async () => (await listeners(name)) === 0);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(ledger.watchFacts('a', () => {}).live).toBe(false);
    await pool.end();
  });

  it('keeps ledgers of one table name in different schemas apart', async () => {
    const [first, second] = [uniqueName(), uniqueName()];
    schemas.push(first, second);
    const mine = open({ schema: first, table: 'ledger', watchHeartbeatMs: 60_000 });
    const theirs = open({ schema: second, table: 'ledger' });
    let changes = 0;
    let proofs = 0;
    const watch = mine.watchFacts('run', () => {
      changes += 1;
    });
    const proof = mine.watchFacts('proof', () => {
      proofs += 1;
    });
    await eventually(() => watch.live && proof.live);
    const before = [changes, proofs] as const;
    expect(await theirs.addFact('run', 'denial', 'r', denial)).toBe(true);
    expect(await mine.addFact('proof', 'denial', 'r', denial)).toBe(true);
    await eventually(() => proofs > before[1]);
    expect(changes).toBe(before[0]);
    watch.close();
    proof.close();
  });

  it('keeps a watch not live while PostgreSQL is down', async () => {
    const ledger = open({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
    let changes = 0;
    const watch = ledger.watchFacts('run', () => {
      changes += 1;
    });
    await expect(ledger.getRepairs('run', 'fp')).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(watch.live).toBe(false);
    watch.close();
    await ledger.close();
    expect(changes).toBe(0);
  });
});
