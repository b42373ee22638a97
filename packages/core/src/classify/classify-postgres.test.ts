import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyFailure } from './classify-failure.js';

const connection = { host: '127.0.0.1', user: 'postgres', database: 'test' } as const;
const suffix = `${process.pid}_${Date.now()}`;
const table = `recourse_classify_${suffix}`;
const role = `recourse_classify_noperm_${suffix}`;
const clients: pg.Client[] = [];

async function connect(options: pg.ClientConfig = {}): Promise<pg.Client> {
  const client = new pg.Client({ ...connection, ...options });
  client.on('error', () => {}); // an idle client whose backend dies must not crash the run
  await client.connect();
  clients.push(client);
  return client;
}

/** [class without a hint, class with sideEffects: true, code]: every case checks both. */
function both(error: unknown): [string, string, string] {
  const plain = classifyFailure(error);
  return [
    plain.failureClass,
    classifyFailure(error, { sideEffects: true }).failureClass,
    plain.code,
  ];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

let admin: pg.Client;
beforeAll(async () => {
  admin = await connect();
  await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v int NOT NULL)`);
  await admin.query(`INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
  await admin.query(`CREATE ROLE ${role} NOLOGIN`);
});

afterAll(async () => {
  await admin.query('RESET ROLE');
  await admin.query(`DROP TABLE IF EXISTS ${table}`);
  await admin.query(`DROP ROLE IF EXISTS ${role}`);
  await Promise.all(clients.map((client) => client.end().catch(() => {})));
});

describe('classifyFailure on real pg errors', () => {
  it('23505 unique violation is STALE_STATE / ALREADY_EXISTS', async () => {
    const error = await rejection(admin.query(`INSERT INTO ${table} VALUES (1, 1)`));
    expect(error).toMatchObject({ name: 'error', code: '23505' });
    expect(both(error)).toEqual(['STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS']);
  });

  it('42501 permission denied is AUTHORIZATION / FORBIDDEN', async () => {
    const client = await connect();
    await client.query(`SET ROLE ${role}`);
    const error = await rejection(client.query(`SELECT * FROM ${table}`));
    expect(error).toMatchObject({ code: '42501' });
    expect(both(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN']);
  });

  it('28000 (a role that does not exist) is AUTHORIZATION / NOT_AUTHORIZED', async () => {
    const client = new pg.Client({ ...connection, user: `${role}_missing` });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: '28000' });
    expect(both(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it('40001 serialization failure is TRANSIENT even with side effects', async () => {
    const first = await connect();
    const second = await connect();
    await first.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await second.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await first.query(`SELECT v FROM ${table} WHERE id = 2`);
    await second.query(`SELECT v FROM ${table} WHERE id = 2`);
    await first.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`);
    const blocked = rejection(second.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`));
    await first.query('COMMIT');
    const error = await blocked;
    await second.query('ROLLBACK');
    expect(error).toMatchObject({ code: '40001' });
    expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TRANSACTION_ROLLBACK']);
  });

  it('40P01 deadlock is TRANSIENT even with side effects', async () => {
    const first = await connect();
    const second = await connect();
    for (const client of [first, second]) {
      await client.query("SET deadlock_timeout = '20ms'");
      await client.query('BEGIN');
    }
    await first.query(`UPDATE ${table} SET v = v + 1 WHERE id = 1`);
    await second.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`);
    const results = await Promise.allSettled([
      first.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`),
      second.query(`UPDATE ${table} SET v = v + 1 WHERE id = 1`),
    ]);
    await Promise.all([first.query('ROLLBACK'), second.query('ROLLBACK')]);
    const failed = results.find((result) => result.status === 'rejected');
    const error = (failed as PromiseRejectedResult).reason;
    expect(error).toMatchObject({ code: '40P01' });
    expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TRANSACTION_ROLLBACK']);
  });

  it('57014 statement timeout is a TIMEOUT', async () => {
    const client = await connect();
    await client.query("SET statement_timeout = '20ms'");
    const error = await rejection(client.query('SELECT pg_sleep(1)'));
    expect(error).toMatchObject({ code: '57014' });
    expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
  });

  it('client query_timeout ("Query read timeout", no code) is a TIMEOUT', async () => {
    const client = await connect({ query_timeout: 30 });
    const error = await rejection(client.query('SELECT pg_sleep(0.2)'));
    expect((error as Error).message).toBe('Query read timeout');
    expect(both(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });

  it('a connect timeout ("timeout expired") is a TIMEOUT before anything was sent', async () => {
    const silent: Socket[] = [];
    const server = createServer((socket) => silent.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const client = new pg.Client({ ...connection, port, connectionTimeoutMillis: 30 });
    const error = await rejection(client.connect());
    for (const socket of silent) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    expect((error as Error).message).toMatch(/timeout expired/);
    expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
  });

  it('connection refused on a closed port is TRANSIENT / CONNECTION_REFUSED', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const error = await rejection(new pg.Client({ ...connection, port }).connect());
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(both(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
