import type { PerFaultRow } from '../chaos/per-fault.js';
import { n } from './format.js';
import { type ChaosSize, defaultRecourse, sizeLabel } from './report-data.js';

/** The best baseline of one row: its name and its correct completions. */
export function bestBaseline(row: PerFaultRow, size: ChaosSize): { name: string; correct: number } {
  let best = { name: '–', correct: -1 };
  for (const m of size.metrics) {
    if (m.kind !== 'baseline') continue;
    const correct = row.correct[m.strategy] ?? 0;
    if (correct > best.correct) best = { name: m.strategy, correct };
  }
  return best;
}

/** Why recourse finishes fewer of a row's jobs than some baseline, where the row is one of those. */
const behindBecause: Record<string, string> = {
  'timeout-before-write (unguarded write)':
    "the write may have landed and has neither a key the downstream dedupes on nor a reconcile read; the baselines 'finish' by sending it again blind, which is right only because this fault struck before the write. recourse refuses the blind re-send and tells the model the safe way on (the read tools named by `verifyWith`, or ask the user).",
  'timeout-after-write (unguarded write)':
    'the write landed and its response was lost; a re-send would do it twice, so every strategy either duplicates it or leaves it in doubt.',
};

/**
 * Single-fault jobs by fault: recourse against every baseline, the rows where recourse is
 * behind the best baseline marked and explained.
 */
export function perFaultSection(size: ChaosSize): string {
  const rows = size.perFault ?? [];
  const recourse = defaultRecourse(size);
  if (!recourse || rows.length === 0) return '';
  const strategies = size.metrics;
  const header = `| fault (single-fault jobs) | jobs | ${strategies.map((m) => m.strategy).join(' | ')} |\n|---|---:|${strategies.map(() => '---:').join('|')}|`;
  const lines = rows.map((row) => {
    const mine = row.correct[recourse.strategy] ?? 0;
    const behind = mine < bestBaseline(row, size).correct;
    const cells = strategies.map((m) => {
      const value = n(row.correct[m.strategy] ?? 0);
      return m === recourse ? (behind ? `**${value}** ⚠` : `**${value}**`) : value;
    });
    return `| ${row.fault} | ${n(row.jobs)} | ${cells.join(' | ')} |`;
  });
  const notes = rows
    .filter((row) => (row.correct[recourse.strategy] ?? 0) < bestBaseline(row, size).correct)
    .map(
      (row) =>
        `- ⚠ **${row.fault}**: ${behindBecause[row.fault] ?? 'not explained yet: a regression to look at.'}`,
    );
  return [
    `Jobs that met exactly one fault (${sizeLabel(size)}), correct completions by strategy. A row marked ⚠ is one where recourse finished fewer than the best baseline.`,
    '',
    header,
    ...lines,
    ...(notes.length > 0
      ? ['', ...notes]
      : ['', 'recourse is at least the best baseline on every row.']),
  ].join('\n');
}
