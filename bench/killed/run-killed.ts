// `pnpm --filter @recourse/bench killed [--quick] [--jobs N] [--batch N] [--engines dbos,restate]`:
// the "process killed" fault: agent jobs as DBOS and Restate workflows, their worker
// SIGKILLed mid-write and restarted; recourse under the engine against the engine alone.
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll } from './child.js';
import { setupDbos } from './dbos-engine.js';
import { startDownstream } from './downstream-server.js';
import type { Engine } from './engine.js';
import { killPlans } from './kill-plan.js';
import {
  type EngineResult,
  type KilledResults,
  summaryTable,
  updateReadmeTable,
  writeKilledReport,
} from './killed-report.js';
import { setupRestate } from './restate-engine.js';
import { runBatches } from './run-batches.js';
import { tally, tallyByPoint } from './tally.js';

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const quick = process.argv.includes('--quick');
const seed = Number(argument('seed') ?? 20_261_201);
const jobsPerStrategy = Number(argument('jobs') ?? (quick ? 3 : 60));
const batchSize = Number(argument('batch') ?? 24);
const engines = (argument('engines') ?? 'dbos,restate').split(',');
const output = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  quick ? 'report-quick' : 'report',
);
const log = (line: string) => console.log(`[killed] ${line}`);

const setups: Record<string, { setup: () => Promise<Engine>; aloneLabel: string }> = {
  dbos: {
    setup: () => setupDbos(180_000),
    aloneLabel: 'DBOS alone (tools as steps, default step retries)',
  },
  restate: {
    setup: () => setupRestate(180_000),
    aloneLabel: 'Restate alone (tools in `ctx.run`, default retry policy)',
  },
};

const plans = killPlans(seed, jobsPerStrategy);
const downstream = await startDownstream();
// Interrupted: no worker, server, database or temporary folder is left behind.
let teardown: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void killAll()
      .then(() => teardown?.())
      .finally(() => process.exit(130));
  });
}
const results: EngineResult[] = [];
let failure: unknown;
try {
  for (const name of engines) {
    const entry = setups[name];
    if (!entry) throw new Error(`unknown engine ${name}: dbos or restate`);
    const started = performance.now();
    const engine = await entry.setup();
    teardown = () => engine.teardown();
    try {
      const records = await runBatches({
        engine,
        downstream,
        plans,
        batchSize,
        blockTimeoutMs: 90_000,
        log,
      });
      results.push({
        engine: engine.name,
        aloneLabel: entry.aloneLabel,
        strategies: {
          recourse: tally(records.filter((r) => r.strategy === 'recourse')),
          alone: tally(records.filter((r) => r.strategy === 'alone')),
        },
        byPoint: tallyByPoint(records),
        realMs: Math.round(performance.now() - started),
      });
    } finally {
      await killAll();
      await engine.teardown();
      teardown = undefined;
    }
  }
} catch (error) {
  failure = error;
} finally {
  await killAll();
  await downstream.close();
}
if (failure) {
  console.error(failure);
  process.exit(1);
}
const report: KilledResults = {
  generatedAt: new Date().toISOString(),
  environment: {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
  },
  seed,
  jobsPerStrategy,
  batchSize,
  engines: results,
};
for (const line of summaryTable(report)) log(line);
for (const file of writeKilledReport(report, output)) log(`wrote ${file}`);
if (!quick && engines.length === Object.keys(setups).length) {
  const readme = fileURLToPath(new URL('../../README.md', import.meta.url));
  if (updateReadmeTable(report, readme)) log('updated the table in README.md');
}
