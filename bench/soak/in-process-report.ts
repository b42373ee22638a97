import { caseNames } from '../overhead/overhead-cases.js';
import type { OverheadResult } from '../overhead/run-overhead.js';

const rows = [
  caseNames.bareRead,
  caseNames.cockatiel,
  caseNames.recourseRead,
  caseNames.contextFloor,
  caseNames.bareWrite,
  caseNames.sha256,
  caseNames.ledgerFloor,
  caseNames.writeFloor,
  caseNames.recourseWrite,
  caseNames.writeKey,
  caseNames.resultJson,
];

const us = (ns: number) => (ns / 1000).toFixed(2);

/**
 * What bounds the two goals, from the same run: the read's floor (the call context) against
 * cockatiel, and what recourse adds above each floor.
 */
function bounds(ns: (name: string) => number): string[] {
  const cockatiel = ns(caseNames.cockatiel);
  const context = ns(caseNames.contextFloor);
  const read = ns(caseNames.recourseRead);
  const floor = ns(caseNames.writeFloor);
  const write = ns(caseNames.recourseWrite);
  const sha256 = ns(caseNames.sha256);
  const key = ns(caseNames.writeKey);
  const json = ns(caseNames.resultJson);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '–');
  return [
    `What bounds them, in this run:`,
    '',
    `- **Read.** \`callContext()\` needs the tool to run inside an AsyncLocalStorage frame: the bare tool in one frame costs ${us(context)} µs, **${ratio(context, cockatiel)}× cockatiel's whole call** (${us(cockatiel)} µs), before recourse does anything (Node's \`run\` builds two context frames per call, entering and leaving). Recourse's own bookkeeping of the call on top of that frame (its turn, whether the guard could refuse, the run's state and outcome, the tracing check, the adapter's check that the result can be sent) is ${us(read - context)} µs. ${1.5 * cockatiel > context ? `A read within 1.5× cockatiel would leave ${us(1.5 * cockatiel - context)} µs for all of that.` : 'Within 1.5× cockatiel nothing is left for it: the frame alone is over the goal.'}`,
    `- **Write.** The floor (${us(floor)} µs) is the frame, one sha256 of ready-made key material (${us(sha256)} µs) and the ledger's claim and completion (${us(ns(caseNames.ledgerFloor))} µs). Recourse adds ${us(write - floor)} µs (${ratio(write, floor)}× the floor). Measured alone in the same run, two parts of it: the key derived from the input (its canonical JSON and that text's sha256: ${us(key)} µs, ${us(key - sha256)} µs more than the floor's hash) and the result's JSON for the ledger (${us(json)} µs). The other ${us(write - floor - (key - sha256) - json)} µs are the call's own bookkeeping: the request and the call, the check that the result holds nothing JSON would lose, the lease kept renewed, the claim's and the completion's answers, and the run's record of the write (for \`outcome()\` and \`compensate()\`).`,
  ];
}

/** The in-process table of the soak report: issue #24's two goals and what bounds them. */
export function renderInProcess(
  overhead: OverheadResult,
  all: OverheadResult[] = [overhead],
): string[] {
  const ns = (name: string) => overhead.calls.find((c) => c.name === name)?.nsPerCall ?? 0;
  const goalsOf = (run: OverheadResult) =>
    run.goals
      .filter((g) => g.name.includes('issue #24'))
      .map((g) => `${g.value.toFixed(2)}×`)
      .join(' and ');
  const lines = [
    '## In-process path',
    '',
    `The success path of one call on the build, in one plain \`node\` process (\`${overhead.build.command}\`, the cases of \`bench/overhead\`): ${overhead.iterations.toLocaleString('en-US')} sequential awaited calls per case and round, ${overhead.rounds} interleaved rounds, median. Load average before / after: ${overhead.loadAverage.before} / ${overhead.loadAverage.after} (the machine is shared: every figure is inflated by it, the ratios of one round less).`,
    '',
    '| call | µs per call |',
    '|---|--:|',
    ...rows.map((name) => `| ${name} | ${us(ns(name))} |`),
    '',
    '| goal | measured | goal | |',
    '|---|--:|--:|---|',
    ...overhead.goals
      .filter((g) => g.name.includes('issue #24'))
      .map(
        (g) =>
          `| ${g.name.replace(' (issue #24)', '')} | **${g.value.toFixed(2)}×** (${us(g.numeratorNs)} µs / ${us(g.denominatorNs)} µs) | ≤ ${g.goal}× | ${g.value <= g.goal ? '✓' : '✗'} |`,
      ),
    '',
    ...(all.length > 1
      ? [
          `The same cases in ${all.length} separate processes, one after another (the read's and the write's ratio in each): ${all.map(goalsOf).join('; ')}. The tables above are the process with the median write ratio: the JIT's choices differ from process to process, and they move these ratios more than the load does.`,
          '',
        ]
      : []),
    ...bounds(ns),
  ];
  return lines;
}
