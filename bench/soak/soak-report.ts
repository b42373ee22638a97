import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OverheadResult } from '../overhead/run-overhead.js';
import { renderLineChart } from '../report-writer/svg-line-chart.js';
import { renderInProcess } from './in-process-report.js';
import type { WorkersRow } from './run-workers.js';

type Counts = Record<string, number>;
interface Percentiles {
  p50: number;
  p99: number;
  count: number;
}

/** What soak-main.ts writes for one store. */
export interface StoreSoak {
  store: string;
  runs: number;
  timedRuns: number;
  callsPerRun: number;
  concurrency: number;
  faultRate: number;
  statuses: Counts;
  servedMs: number;
  heap: { runs: number; bytes: number }[];
  ledgerRetainedBytes: number;
  baseline: { resources: Counts; listeners: Counts };
  atEnd: { resources: Counts; listeners: Counts };
  afterClose: { resources: Counts; listeners: Counts };
  roundTrips: Record<string, { perCall: number; perRun: number; methods: Counts }>;
  /** Microseconds, per `<kind>:<bare|recourse>`. */
  latency: Record<string, Percentiles>;
}

export interface SoakResult {
  generatedAt: string;
  environment: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    loadAverage: number;
  };
  runs: number;
  stores: StoreSoak[];
  workers: WorkersRow[];
  /** The overhead cases on the build: the in-process goals (wrapped read, wrapped write). */
  inProcess?: OverheadResult | undefined;
  /** Every process of the in-process measurement, `inProcess` among them. */
  inProcessRuns?: OverheadResult[] | undefined;
}

const kinds = ['read', 'write', 'undeclared'] as const;
const storeLabel: Record<string, string> = {
  memory: 'memory',
  sqlite: 'SQLite',
  redis: 'Redis',
  postgres: 'PostgreSQL',
};
const goalRatio: Record<string, number> = { postgres: 0.45, redis: 0.7 };

/** Heap growth per finished run: the least-squares slope over the second half of the soak. */
export function growthPerRun(heap: readonly { runs: number; bytes: number }[]): number {
  const half = heap.slice(Math.floor(heap.length / 2));
  if (half.length < 2) return 0;
  const mx = half.reduce((s, p) => s + p.runs, 0) / half.length;
  const my = half.reduce((s, p) => s + p.bytes, 0) / half.length;
  const sxy = half.reduce((s, p) => s + (p.runs - mx) * (p.bytes - my), 0);
  const sxx = half.reduce((s, p) => s + (p.runs - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/** What is open now that was not before the store was opened, as `Type ×n`. */
function opened(now: Counts, before: Counts): string {
  const extra = Object.entries(now)
    .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${name} ×${n}`);
  return extra.length > 0 ? extra.join(', ') : 'none';
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export function renderSoakMarkdown(result: SoakResult): string {
  const lines: string[] = [];
  const push = (...more: string[]) => lines.push(...more);
  const e = result.environment;
  push(
    '# Soak: a long-lived server',
    '',
    `Generated ${result.generatedAt} by \`./run.sh bench soak\` on ${e.cpus} × ${e.cpuModel}, Node ${e.node} (${e.platform}), load average ${e.loadAverage.toFixed(1)} when it ended. Nothing here is edited by hand.`,
    '',
    '## Method',
    '',
    `One plain \`node --expose-gc\` process per store runs the **built** packages. It serves ${int(result.runs)} runs the way a server does: each request makes a new \`createRecovery(...)\` (\`@recourse/ai-sdk\`) on one shared ledger, makes 20 tool calls one after another (10 reads, 6 idempotent writes, 4 tools that declare nothing, each write a new key), reads \`outcome()\` and drops the recovery; 8 requests run at once. 1 % of reads and writes fail once with a 503 and are retried by recourse; backoff sleeps under 5 s are skipped (the injected clock), so a retry costs its work, not its wait. The heap is read after forced collections at 20 points; the timed pass (latency) serves its runs one at a time, the same call bare right before the wrapped one. Round trips are counted by a proxy around the ledger in a separate pass (runs of 1 call and of 20 calls, so the per-run cost and the per-call cost come apart).`,
    '',
    '## Heap over finished runs',
    '',
    '![heap over runs](soak-heap.svg)',
    '',
    '| store | runs | completed | heap after warm-up | heap at the end | growth per finished run | retained by the ledger, per run | growth not held by the ledger, per run |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const s of result.stores) {
    const growth = growthPerRun(s.heap);
    const ledger = s.ledgerRetainedBytes / s.runs;
    push(
      `| ${storeLabel[s.store] ?? s.store} | ${int(s.runs)} | ${int(s.statuses.COMPLETED ?? 0)} | ${mb(s.heap[0]?.bytes ?? 0)} MB | ${mb(s.heap.at(-1)?.bytes ?? 0)} MB | ${int(growth)} B | ${int(ledger)} B | ${int(growth - ledger)} B |`,
    );
  }
  push(
    '',
    'The memory ledger keeps every record for its retention (24 h by default): that is its growth, and it is let go with the ledger. The other stores keep their records outside the process.',
    '',
    '## Left open at the end',
    '',
    '| store | open after every run finished (store still open) | open after `ledger.close()` | process listeners added |',
    '|---|---|---|---|',
  );
  for (const s of result.stores) {
    const listeners = opened(s.atEnd.listeners, s.baseline.listeners);
    push(
      `| ${storeLabel[s.store] ?? s.store} | ${opened(s.atEnd.resources, s.baseline.resources)} | ${opened(s.afterClose.resources, s.baseline.resources)} | ${listeners} |`,
    );
  }
  push(
    '',
    "`TCPSocketWrap` are the store's connections (the PostgreSQL pool keeps up to 10, with an idle `Timeout` each; Redis a command and a subscriber connection). A finished run holds nothing: its watch of the store is closed when the run is collected (a `FinalizationRegistry`).",
    '',
    '## Store round trips per call',
    '',
    'One ledger method call is one round trip on a remote store. "Per run" is paid once, by the first call of a run (the run\'s facts are read and, where the store pushes changes, watched).',
    '',
    '| store | read | write | undeclared | per run | what a write does |',
    '|---|--:|--:|--:|--:|---|',
  );
  for (const s of result.stores) {
    const rt = s.roundTrips;
    const methods = Object.entries(rt.write?.methods ?? {})
      .filter(([, n]) => n >= 0.5)
      .map(([name, n]) => `${name} ${fixed(n, 1)}`)
      .join(', ');
    push(
      `| ${storeLabel[s.store] ?? s.store} | ${fixed(rt.read?.perCall ?? 0)} | ${fixed(rt.write?.perCall ?? 0)} | ${fixed(rt.undeclared?.perCall ?? 0)} | ${fixed(rt.read?.perRun ?? 0)} | ${methods} |`,
    );
  }
  push(
    '',
    "Goals: reads 0, writes 2 (one claim, one completion). SQLite has no push of facts (processes sharing a file cannot be told of a change cheaply), so it reads the run's facts before each call: one local read, no network. A tool that declares nothing is claimed (so that a worker that died mid-call leaves it in doubt, not forgotten) and released on success: two round trips, and its result is not stored.",
    '',
    ...redisReadNote(result),
    '',
    '## Latency added per call',
    '',
    "Microseconds; the same call without recourse right before. On a remote store the write's added time is its two round trips.",
    '',
    '| store | read p50 | read p99 | write p50 | write p99 | undeclared p50 | undeclared p99 |',
    '|---|--:|--:|--:|--:|--:|--:|',
  );
  for (const s of result.stores) {
    const cells = kinds.flatMap((kind) => {
      const wrapped = s.latency[`${kind}:recourse`];
      const bare = s.latency[`${kind}:bare`];
      if (!wrapped || !bare) return ['–', '–'];
      return [fixed(wrapped.p50 - bare.p50, 1), fixed(wrapped.p99 - bare.p99, 1)];
    });
    push(`| ${storeLabel[s.store] ?? s.store} | ${cells.join(' | ')} |`);
  }
  push(
    '',
    '## Workers on one store',
    '',
    '![claims per second over workers](soak-workers.svg)',
    '',
    "Worker processes claim fresh keys, 4 in flight each, all in the same window; the same processes then make the store's raw conditional write (PostgreSQL `INSERT … ON CONFLICT DO NOTHING`, Redis `SET NX PX`), rounds alternating.",
    '',
    '| store | workers | claims/s | claim p99 | raw writes/s | raw p99 | claims ÷ raw | goal |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const row of result.workers) {
    const goal = goalRatio[row.store];
    const verdict = goal === undefined ? '' : `≥ ${goal} ${row.ratio >= goal ? '✓' : '✗'}`;
    push(
      `| ${storeLabel[row.store] ?? row.store} | ${row.workers} | ${int(row.claims)} | ${fixed(row.claimP99Ms)} ms | ${int(row.raw)} | ${fixed(row.rawP99Ms)} ms | ${fixed(row.ratio)} | ${verdict} |`,
    );
  }
  const redisRows = result.workers.filter(
    (row) => row.store === 'redis' && row.serverUsPerClaim !== undefined,
  );
  if (redisRows.length > 0)
    push(
      '',
      `Redis's own time (INFO commandstats, all rounds) per claim — on a fresh key one \`SET … NX PX … GET\`, no script — against one raw \`SET NX PX\`: ${redisRows.map((row) => `${row.workers} worker(s) ${fixed(row.serverUsPerClaim ?? 0, 1)} µs vs ${fixed(row.serverUsPerRaw ?? 0, 1)} µs`).join('; ')}. What is left between them is the client's work per claim (the record's JSON, a token, a longer command), on the same ${e.cpus} cores as the server and the other workers.`,
    );
  for (const store of ['postgres', 'redis']) {
    const rows = result.workers.filter((row) => row.store === store);
    const best = rows.reduce<WorkersRow | undefined>(
      (a, b) => (a && a.claims >= b.claims ? a : b),
      undefined,
    );
    if (best)
      push(
        '',
        `${storeLabel[store]}: claims peak at ${best.workers} worker(s) (${int(best.claims)}/s); the raw write peaks at ${rows.reduce((a, b) => (a.raw >= b.raw ? a : b)).workers}. On ${e.cpus} cores shared by the store server and the workers, throughput stops growing once the processes outnumber the cores.`,
      );
  }
  if (result.inProcess) push('', ...renderInProcess(result.inProcess, result.inProcessRuns));
  return `${lines.join('\n')}\n`;
}

export function writeSoakReport(directory: string, result: SoakResult): string[] {
  mkdirSync(directory, { recursive: true });
  const heapChart = renderLineChart({
    title: 'Heap after a forced GC, over finished runs',
    xLabel: 'finished runs',
    yLabel: 'heap used (MB)',
    series: result.stores.map((s) => ({
      label: storeLabel[s.store] ?? s.store,
      points: s.heap.map((p) => ({ x: p.runs, y: p.bytes / 1024 / 1024 })),
    })),
    xTicks: [0, result.runs / 4, result.runs / 2, (3 * result.runs) / 4, result.runs],
    formatX: (x) => Math.round(x).toLocaleString('en-US'),
    formatY: (y) => y.toFixed(0),
  });
  const workerSeries = ['postgres', 'redis'].flatMap((store) => {
    const rows = result.workers.filter((row) => row.store === store);
    return [
      {
        label: `${storeLabel[store]} claims`,
        points: rows.map((r) => ({ x: r.workers, y: r.claims })),
      },
      {
        label: `${storeLabel[store]} raw`,
        points: rows.map((r) => ({ x: r.workers, y: r.raw })),
        dashed: true,
      },
    ];
  });
  const workersChart = renderLineChart({
    title: 'Claims per second over worker processes',
    xLabel: 'worker processes',
    yLabel: 'operations per second',
    series: workerSeries,
    formatX: (x) => String(x),
    formatY: (y) => Math.round(y).toLocaleString('en-US'),
  });
  const files = {
    'soak.md': renderSoakMarkdown(result),
    'soak.json': `${JSON.stringify(result, null, 2)}\n`,
    'soak-heap.svg': heapChart,
    'soak-workers.svg': workersChart,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(directory, name), text);
  return Object.keys(files);
}

/**
 * Why a Redis read may cost a fraction of a round trip: a run's calls read its facts until
 * the subscription that pushes new ones is confirmed (a fact published before it took
 * effect would otherwise be missed).
 */
function redisReadNote(result: SoakResult): string[] {
  const redis = result.stores.find((s) => s.store === 'redis')?.roundTrips.read;
  const listFacts = redis?.methods?.listFacts;
  if (!redis || listFacts === undefined || redis.perCall <= 0) return [];
  return [
    `Redis: a read costs ${fixed(redis.perCall)} round trips on average, all of them \`listFacts\` (${fixed(listFacts * 20, 1)} per 20-call run instead of one): until the store confirms the run's subscription (a round trip on the watch connection), each call reads the run's facts itself, as it must (a denial published before the subscription took effect would otherwise be missed). The calls after it read none.`,
    '',
  ];
}
