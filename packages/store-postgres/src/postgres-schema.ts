import type { Pool } from 'pg';

/** Quoted, validated names of the ledger's three tables and its index. */
export interface TableNames {
  records: string;
  /** The index name as CREATE INDEX takes it (unqualified: it lives with its table). */
  recordsByAge: string;
  qualifiedRecordsByAge: string;
  counters: string;
  denials: string;
}

export function createTableNames(table: string, schema: string | undefined): TableNames {
  // Names are validated against a strict pattern first; quoting is a second guard.
  const qualify = (name: string) => (schema ? `"${schema}"."${name}"` : `"${name}"`);
  return {
    records: qualify(table),
    recordsByAge: `"${table}_updated_at"`,
    qualifiedRecordsByAge: qualify(`${table}_updated_at`),
    counters: qualify(`${table}_counters`),
    denials: qualify(`${table}_denials`),
  };
}

// One lock for every ledger's migration: concurrent first uses (of any table) wait for
// each other instead of failing on CREATE's catalog races (23505, 42P07).
const migrationLock = 'recourse.ledger.migrate';

/** Creates the schema (if named) and the tables, idempotently and safely in parallel. */
export async function createTables(
  pool: Pool,
  names: TableNames,
  schema: string | undefined,
): Promise<void> {
  // A role allowed only to read and write rows may not run CREATE … IF NOT EXISTS even
  // when everything exists (42501), so look first.
  if (await hasTables(pool, names)) return;
  const client = await pool.connect();
  let failure: unknown;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [migrationLock]);
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.records} (
      key text PRIMARY KEY,
      state text NOT NULL CHECK (state IN ('in_flight', 'completed', 'uncertain')),
      payload_hash text NOT NULL,
      token text NOT NULL,
      lease_expires_at bigint,
      result jsonb,
      note text,
      in_doubt boolean NOT NULL DEFAULT false,
      previous text,
      updated_at bigint NOT NULL
    )`);
    await client.query(
      `CREATE INDEX IF NOT EXISTS ${names.recordsByAge} ON ${names.records} (updated_at)`,
    );
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.counters} (
      run_id text NOT NULL,
      name text NOT NULL,
      value double precision NOT NULL,
      PRIMARY KEY (run_id, name)
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.denials} (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      resource text NOT NULL,
      capability text,
      capability_key text NOT NULL,
      tool text NOT NULL,
      reason text NOT NULL,
      at double precision NOT NULL,
      UNIQUE (run_id, resource, capability_key)
    )`);
    await client.query('COMMIT');
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    // A client that failed mid-transaction is destroyed rather than reused.
    client.release(failure instanceof Error ? failure : undefined);
  }
}

async function hasTables(pool: Pool, names: TableNames): Promise<boolean> {
  const relations = [names.records, names.qualifiedRecordsByAge, names.counters, names.denials];
  const { rows } = await pool.query<{ ready: boolean }>(
    'SELECT bool_and(to_regclass(name) IS NOT NULL) AS ready FROM unnest($1::text[]) AS name',
    [relations],
  );
  return rows[0]?.ready === true;
}
