import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChaos } from './chaos/run-chaos.js';
import {
  createRecourseStrategy,
  type RecourseStrategyOptions,
} from './chaos/strategies/recourse.js';

// `pnpm --filter @recourse/bench ablation`: what each default of recourse's runtime buys,
// one default turned back at a time, on the chaos benchmark's seed and sizes. Writes
// report/ablation.md. Counts, not times: the chaos runs on virtual time.
const seed = 20_260_511;
const sizes = [
  { jobs: 5_000, rate: 0.05 },
  { jobs: 1_000, rate: 0.2 },
];
type Variant = NonNullable<RecourseStrategyOptions['variant']>;
const noStreak = { tripAfter: 1_000_000 };
const variants: { variant: Variant; what: string }[] = [
  { variant: { name: 'defaults' }, what: 'every default as shipped' },
  {
    variant: { name: '3 attempts, no time budget', retry: { maxAttempts: 3, maxElapsedMs: 1e9 } },
    what: 'the first version’s attempts: 3 per call, no 30 s budget',
  },
  {
    variant: { name: 'full jitter', retry: { jitter: 'full' } },
    what: 'a wait anywhere between 0 and the ceiling',
  },
  {
    variant: { name: 'no circuit (tokens only)', budget: noStreak },
    what: 'the retry budget without its trip on failing calls in a row',
  },
  {
    variant: {
      name: 'first version’s defaults',
      retry: { maxAttempts: 3, maxElapsedMs: 1e9, jitter: 'full' },
      budget: noStreak,
    },
    what: 'all three turned back together',
  },
  {
    variant: { name: 'reads left undeclared', readsUndeclared: true },
    what: 'a user who declares the writes and forgets the reads',
  },
];

const lines = [
  '# What each default buys',
  '',
  `Generated ${new Date().toISOString().slice(0, 10)} by \`pnpm --filter @recourse/bench ablation\`: the chaos benchmark (seed ${seed}) with recourse's runtime on a MemoryLedger and the shared retry budget, one default turned back at a time. Correct completions: completed before the deadline, every write landed exactly once.`,
  '',
];
for (const size of sizes) {
  const label = `${size.jobs.toLocaleString('en-US')} jobs @ ${Math.round(size.rate * 100)}%`;
  lines.push(
    `## ${label}`,
    '',
    '| variant | what changes | correct completions | duplicate / lost writes | outage amplification | requests per job | job time p99 (virtual ms) |',
    '|---|---|---:|---:|---:|---:|---:|',
  );
  for (const { variant, what } of variants) {
    const strategy = createRecourseStrategy({ ledger: 'memory', variant });
    const { metrics: m } = await runChaos({ ...size, seed }, strategy);
    console.log(
      `[ablation] ${label} · ${variant.name}: ${m.correctCompletions} correct, ${m.duplicateWrites} duplicate, ${m.lostWrites} lost, amplification ${m.outage.amplification}`,
    );
    lines.push(
      `| ${variant.name} | ${what} | **${m.correctCompletions.toLocaleString('en-US')}** | ${m.duplicateWrites} / ${m.lostWrites} | ${m.outage.amplification} | ${m.requestsPerJob} | ${m.jobWallMs.p99.toLocaleString('en-US')} |`,
    );
  }
  lines.push('');
}
const output = join(dirname(fileURLToPath(import.meta.url)), 'report', 'ablation.md');
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, `${lines.join('\n')}\n`);
console.log(`[ablation] wrote ${output}`);
