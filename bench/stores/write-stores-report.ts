import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreRow } from './measure-store.js';

export interface StoresReport {
  generatedAt: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string };
  durationMs: number;
  rows: StoreRow[];
}

const rate = (value: number) => Math.round(value).toLocaleString('en-US');

/** Writes `stores.md` and `stores.json` into `directory`. */
export function writeStoresReport(directory: string, report: StoresReport): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'stores.json'), `${JSON.stringify(report, null, 2)}\n`);
  const { environment: env } = report;
  const lines = [
    '# Ledger stores: claims per second',
    '',
    `Generated ${report.generatedAt} by \`bench/stores/run.ts\` on Node ${env.node}, ${env.platform}, ${env.cpus} × ${env.cpuModel}. Each figure is ${report.durationMs} ms of one operation on fresh keys, taken in 4 rounds interleaved with the other two operations (the machine may be shared: interleaving keeps the ratios fair when the absolute rates move); nothing here is edited by hand.`,
    '',
    '| store | clients | claim / s | claim + complete / s | raw conditional write / s | claim ÷ raw |',
    '|---|--:|--:|--:|--:|--:|',
    ...report.rows.map(
      (r) =>
        `| ${r.store} | ${r.clients} | ${rate(r.claim)} | ${rate(r.claimComplete)} | ${rate(r.raw)} | ${r.ratio.toFixed(2)} |`,
    ),
    '',
    '## Method',
    '',
    '- **claim**: `ledger.claim({ key, payloadHash })` on a key never seen before (always `acquired`).',
    '- **claim + complete**: the same, then `ledger.complete(key, token, result)`: the two ledger round trips of one successful write.',
    '- **raw**: the conditional write the store offers, with the same durability: Redis `SET key value NX PX`, PostgreSQL `INSERT … ON CONFLICT DO NOTHING`, SQLite `INSERT OR IGNORE` (WAL, default `synchronous`, busy timeout), measured in the same run.',
    '- **clients**: concurrent loops, each with its own ledger instance and connection (PostgreSQL: one pool per client; Redis: one connection per client). SQLite clients are separate connections in one process; `node:sqlite` is synchronous, so they take turns on the event loop and show lock overhead, not parallelism. Real parallel SQLite writers are separate processes (see `tests/workers/`).',
    '- The ratio is what the ledger keeps of the raw write: a claim does more (payload hash, fencing token, lease, retention, record purge), so below 1 is expected.',
    '',
  ];
  writeFileSync(join(directory, 'stores.md'), lines.join('\n'));
}
