import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/** Quoted, validated names of the ledger's tables and index, and its watch channel. */
export interface TableNames {
  records: string;
  /** The index name as CREATE INDEX takes it (unqualified: it lives with its table). */
  recordsByAge: string;
  qualifiedRecordsByAge: string;
  repairs: string;
  facts: string;
  /**
   * The channel `addFact` notifies (unquoted; LISTEN quotes it). Channels are per
   * database, not per schema, so a named schema adds a short hash of it.
   */
  channel: string;
}

export function createTableNames(table: string, schema: string | undefined): TableNames {
  // Names are validated against a strict pattern first; quoting is a second guard.
  const qualify = (name: string) => (schema ? `"${schema}"."${name}"` : `"${name}"`);
  const schemaTag = schema
    ? `_${createHash('sha256').update(schema).digest('hex').slice(0, 8)}`
    : '';
  return {
    records: qualify(table),
    recordsByAge: `"${table}_updated_at"`,
    qualifiedRecordsByAge: qualify(`${table}_updated_at`),
    repairs: qualify(`${table}_repairs`),
    facts: qualify(`${table}_facts`),
    channel: `${table}_facts${schemaTag}`,
  };
}

// One lock for every ledger's migration: concurrent first uses (of any table) wait for
// each other instead of failing on CREATE's catalog races (23505, 42P07).
const migrationLock = 'recourse.ledger.migrate';

/**
 * Creates the schema (if named) and the tables, idempotently and safely in parallel, and
 * brings a records table of an earlier version (a `jsonb` result column) up to date.
 */
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
      result_json text,
      result_unstorable text,
      note text,
      in_doubt boolean NOT NULL DEFAULT false,
      previous text,
      updated_at bigint NOT NULL
    )`);
    await upgradeResultColumns(client, names);
    await client.query(
      `CREATE INDEX IF NOT EXISTS ${names.recordsByAge} ON ${names.records} (updated_at)`,
    );
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.repairs} (
      run_id text NOT NULL,
      fingerprint text NOT NULL,
      count bigint NOT NULL,
      updated_at bigint NOT NULL,
      PRIMARY KEY (run_id, fingerprint)
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${names.facts} (
      seq bigserial PRIMARY KEY,
      run_id text NOT NULL,
      kind text NOT NULL,
      id text NOT NULL,
      data text NOT NULL,
      created_at bigint NOT NULL,
      UNIQUE (run_id, kind, id)
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

/**
 * Earlier versions kept results as `jsonb` in `result`: its text becomes `result_json`
 * (jsonb's own rendering; new results keep the caller's text byte for byte).
 */
async function upgradeResultColumns(client: PoolClient, names: TableNames): Promise<void> {
  await client.query(`ALTER TABLE ${names.records}
    ADD COLUMN IF NOT EXISTS result_json text,
    ADD COLUMN IF NOT EXISTS result_unstorable text`);
  const { rows } = await client.query<{ old: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1)
      AND attname = 'result' AND NOT attisdropped) AS old`,
    [names.records],
  );
  if (!rows[0]?.old) return;
  await client.query(`UPDATE ${names.records} SET result_json = result::text
    WHERE result IS NOT NULL AND result_json IS NULL`);
  await client.query(`ALTER TABLE ${names.records} DROP COLUMN result`);
}

async function hasTables(pool: Pool, names: TableNames): Promise<boolean> {
  const relations = [names.records, names.qualifiedRecordsByAge, names.repairs, names.facts];
  const { rows } = await pool.query<{ ready: boolean }>(
    `SELECT bool_and(to_regclass(name) IS NOT NULL) AND EXISTS (
        SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($2)
          AND attname = 'result_json' AND NOT attisdropped) AS ready
      FROM unnest($1::text[]) AS name`,
    [relations, names.records],
  );
  return rows[0]?.ready === true;
}
