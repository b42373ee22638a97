import type { TableNames } from './postgres-schema.js';

/**
 * The ledger's SQL, one builder per operation. Each write is a single conditional
 * statement, so concurrent workers on separate connections serialize on the row lock
 * and the record rules of `@recourse/core` hold without an explicit transaction.
 */
export interface LedgerStatements {
  /** $1 key, $2 payload hash, $3 token, $4 now, $5 lease end, $6 retention ms. */
  claim: string;
  /** $1 key. */
  select: string;
  /** $1 key, $2 token, $3 result JSON text or null, $4 unstorable reason or null, $5 now. */
  complete: string;
  /** $1 key, $2 token. Zero rows when the token lost the key or never had it. */
  isCompletedBy: string;
  /**
   * $1 key, $2 token, $3 now, $4 lease end, $5 retention ms. Extends the token's in-flight
   * lease; zero rows when the token lost the key, it is not in flight or past retention.
   */
  renew: string;
  /** $1 key, $2 token. Frees a key nobody doubts. */
  releaseFree: string;
  /** $1 key, $2 token, $3 now. Puts an in-doubt key back to uncertain. */
  releaseDoubtful: string;
  /** $1 key, $2 token, $3 now, $4 note or null. */
  markUncertain: string;
  /** $1 run, $2 fingerprint, $3 now. Returns the new count. */
  addRepair: string;
  /** $1 run, $2 fingerprint. */
  repairs: string;
  /**
   * $1 run, $2 kind, $3 id, $4 fact JSON, $5 now, $6 channel. One row when the fact is
   * new, and only then a notification with the run id.
   */
  addFact: string;
  /** $1 run. Every kind, oldest first. */
  listFacts: string;
  /** $1 now, $2 retention ms. Deletes records past retention. */
  sweep: string;
}

export function createStatements(names: TableNames): LedgerStatements {
  const { records, repairs, facts } = names;
  // Past retention a record counts as absent; in-flight records age from their lease end.
  const pastRetentionAt = (now: string, retention: string) => `(${now}::float8 >=
      (CASE WHEN r.state = 'in_flight' THEN COALESCE(r.lease_expires_at, r.updated_at)
        ELSE r.updated_at END)::float8 + ${retention}::float8)`;
  const pastRetention = pastRetentionAt('$4', '$6');
  return {
    claim: `INSERT INTO ${records} AS r
        (key, state, payload_hash, token, lease_expires_at, result_json, result_unstorable, note,
         in_doubt, previous, updated_at)
      VALUES ($1, 'in_flight', $2, $3, $5::bigint, NULL, NULL, NULL, false, NULL, $4::bigint)
      ON CONFLICT (key) DO UPDATE SET
        state = 'in_flight',
        payload_hash = EXCLUDED.payload_hash,
        token = EXCLUDED.token,
        lease_expires_at = EXCLUDED.lease_expires_at,
        result_json = NULL,
        result_unstorable = NULL,
        note = CASE WHEN ${pastRetention} THEN NULL ELSE r.note END,
        previous = CASE WHEN ${pastRetention} THEN NULL
          WHEN r.state = 'uncertain' THEN 'uncertain' ELSE 'expired' END,
        in_doubt = NOT ${pastRetention},
        updated_at = EXCLUDED.updated_at
      WHERE ${pastRetention}
        OR (r.payload_hash = EXCLUDED.payload_hash AND (r.state = 'uncertain'
          OR (r.state = 'in_flight' AND r.lease_expires_at <= $4::bigint)))
      RETURNING r.token, r.previous`,
    select: `SELECT key, state, payload_hash, lease_expires_at, result_json, result_unstorable,
        note, updated_at
      FROM ${records} WHERE key = $1`,
    complete: `UPDATE ${records} SET state = 'completed', result_json = $3::text,
        result_unstorable = $4::text, lease_expires_at = NULL, note = NULL, in_doubt = false,
        previous = NULL, updated_at = $5::bigint
      WHERE key = $1 AND token = $2 AND state <> 'completed'`,
    isCompletedBy: `SELECT 1 FROM ${records} WHERE key = $1 AND token = $2 AND state = 'completed'`,
    renew: `UPDATE ${records} SET lease_expires_at = $4::bigint, updated_at = $3::bigint
      WHERE key = $1 AND token = $2 AND state = 'in_flight'
        AND $3::float8 < COALESCE(lease_expires_at, updated_at)::float8 + $5::float8`,
    releaseFree: `DELETE FROM ${records}
      WHERE key = $1 AND token = $2 AND state = 'in_flight' AND NOT in_doubt`,
    releaseDoubtful: `UPDATE ${records} SET state = 'uncertain', lease_expires_at = NULL,
        previous = NULL, updated_at = $3::bigint
      WHERE key = $1 AND token = $2 AND state = 'in_flight' AND in_doubt`,
    markUncertain: `UPDATE ${records} SET state = 'uncertain', lease_expires_at = NULL,
        in_doubt = true, previous = NULL, note = COALESCE($4::text, note), updated_at = $3::bigint
      WHERE key = $1 AND token = $2 AND state <> 'completed'`,
    addRepair: `INSERT INTO ${repairs} AS r (run_id, fingerprint, count, updated_at)
      VALUES ($1, $2, 1, $3::bigint)
      ON CONFLICT (run_id, fingerprint)
        DO UPDATE SET count = r.count + 1, updated_at = EXCLUDED.updated_at
      RETURNING count`,
    repairs: `SELECT count FROM ${repairs} WHERE run_id = $1 AND fingerprint = $2`,
    // The notification leaves with the insert's commit, and only when a row was inserted.
    // NOTIFY payloads stop at 8000 bytes: a longer run id sends '' ("some run changed").
    addFact: `WITH added AS (
        INSERT INTO ${facts} (run_id, kind, id, data, created_at)
        VALUES ($1, $2, $3, $4, $5::bigint)
        ON CONFLICT (run_id, kind, id) DO NOTHING
        RETURNING run_id)
      SELECT pg_notify($6::text,
          CASE WHEN octet_length(run_id) < 8000 THEN run_id ELSE '' END)
        FROM added`,
    listFacts: `SELECT kind, data FROM ${facts} WHERE run_id = $1 ORDER BY seq`,
    // updated_at never exceeds a record's retention start, so its index narrows the scan;
    // the full condition is rechecked on each row, sparing one a claim just took over.
    sweep: `DELETE FROM ${records} AS r
      WHERE r.updated_at::float8 <= $1::float8 - $2::float8 AND ${pastRetentionAt('$1', '$2')}`,
  };
}
