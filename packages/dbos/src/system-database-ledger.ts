import { DBOS } from '@dbos-inc/dbos-sdk';
import { PostgresLedger } from '@recourse/store-postgres';
import pg from 'pg';

/** The table of the default ledger in DBOS's system database (and `<table>_repairs`, `<table>_facts`). */
export const systemDatabaseTable = 'recourse_ledger';

const ledgers = new Map<string, PostgresLedger>();

/**
 * One ledger per system database and process, in its own tables (created on first use,
 * beside DBOS's own schema). Its pool lets the process exit when idle, and DBOS's shutdown
 * closes it.
 */
export function systemDatabaseLedger(systemDatabaseUrl: string): PostgresLedger {
  const known = ledgers.get(systemDatabaseUrl);
  if (known) return known;
  const pool = new pg.Pool({
    connectionString: systemDatabaseUrl,
    max: 4,
    allowExitOnIdle: true,
  });
  // An idle client whose backend dies emits 'error'; unhandled, it would crash the process.
  pool.on('error', () => {});
  const ledger = new PostgresLedger({ pool, table: systemDatabaseTable });
  ledgers.set(systemDatabaseUrl, ledger);
  DBOS.registerLifecycleCallback({
    destroy: async () => {
      if (ledgers.get(systemDatabaseUrl) !== ledger) return;
      ledgers.delete(systemDatabaseUrl);
      await ledger.close();
      await pool.end();
    },
  });
  return ledger;
}
