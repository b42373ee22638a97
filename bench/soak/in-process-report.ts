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
];

const us = (ns: number) => (ns / 1000).toFixed(2);

/** The in-process table of the soak report: issue #24's two goals and what bounds them. */
export function renderInProcess(overhead: OverheadResult): string[] {
  const ns = (name: string) => overhead.calls.find((c) => c.name === name)?.nsPerCall ?? 0;
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
    `What bounds them: a wrapped read is the bare tool inside one AsyncLocalStorage frame (${us(ns(caseNames.contextFloor))} µs here, what \`callContext()\` needs) plus the runtime's bookkeeping of the call (its turn, its guard, the run's state, the tracing check); cockatiel runs the bare tool with neither. A write's floor is ${us(ns(caseNames.writeFloor))} µs: the ledger's claim and completion (${us(ns(caseNames.ledgerFloor))} µs) and the sha256 (${us(ns(caseNames.sha256))} µs) in a context; recourse adds the canonical JSON of the input, the result's serialisation and check, the lease renewal, and the run's record of the write (for \`outcome()\` and \`compensate()\`).`,
  ];
  return lines;
}
