import type { OverheadResult } from '../overhead/run-overhead.js';
import { n } from './format.js';

const times = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(2)}×`);
const bytes = (value: number | undefined) => (value === undefined ? 'n/a' : n(Math.max(0, value)));

/** Per-call cost on the success path, the lead's two targets, and the decision path. */
export function overheadTables(overhead: OverheadResult): string {
  const calls = overhead.calls
    .map(
      (c) =>
        `| ${c.name} | ${n(Math.round(c.nsPerCall))} | ${c.overheadNs === undefined ? '' : n(c.overheadNs)} | ${c.ratio === undefined ? '' : `${times(c.ratio)} ${c.ratioTo}`} | ${times(c.ratioToCockatiel)} | ${times(c.ratioToPRetry)} | ${bytes(c.bytesPerCall)} | ${bytes(c.retainedBytesPerCall)} |`,
    )
    .join('\n');
  const goals = overhead.goals
    .map(
      (g) =>
        `| ${g.name} | **${g.value.toFixed(2)}×** (${n(g.numeratorNs)} ns / ${n(g.denominatorNs)} ns) | ≤ ${g.goal.toFixed(1)}× | ${g.value <= g.goal ? 'met' : 'not met'} |`,
    )
    .join('\n');
  const paths = overhead.paths
    .map((p) => `| ${p.name} | ${n(p.nsPerCall)} | ${n(p.ratio ?? 0)}× |`)
    .join('\n');
  return `| call | ns per call | overhead over the bare tool (ns) | ratio | × cockatiel | × p-retry | bytes allocated per call | bytes retained per call |
|---|---:|---:|---:|---:|---:|---:|---:|
${calls}

| target | measured | goal | |
|---|---:|---:|---|
${goals}

| path | ns per call | ratio to a bare function call |
|---|---:|---:|
${paths}`;
}

export function overheadIntro(overhead: OverheadResult): string {
  return `Measured on the build: the packages compiled by \`tsc\` (their \`dist\`), the cases compiled by \`tsc\` too, run as \`${overhead.build.command}\` (Node ${overhead.build.node}, no \`recourse-source\` condition, no TypeScript loader). ${n(overhead.iterations)} sequential awaited calls per case and round, ${overhead.rounds} interleaved rounds, median. Load average of the machine (shared with other work) before / after: ${overhead.loadAverage.before} / ${overhead.loadAverage.after} — other work inflates every figure; the ratios measured in the same rounds move less. *Overhead* is a wrapped call minus the bare tool of the same kind; *retained* is the heap after 10,000 calls and a forced GC minus the heap before them, per call.`;
}
