import { bestBaseline } from './render-per-fault.js';
import { type BenchResults, defaultRecourse, largestSize, sizeLabel } from './report-data.js';
import { renderBarChart } from './svg-bar-chart.js';

type Metrics = BenchResults['chaos'][number]['metrics'][number];

/** The report's charts, by file name. */
export function renderCharts(results: BenchResults): Record<string, string> {
  const strategies = results.chaos[0]?.metrics.map((m) => m.strategy) ?? [];
  const perSize = (pick: (m: Metrics) => number) =>
    results.chaos.map((size) => ({ label: sizeLabel(size), values: size.metrics.map(pick) }));
  const calls = results.overhead.calls;
  const paths = results.overhead.paths;
  const largest = largestSize(results);
  const recourse = defaultRecourse(largest);
  const faults = largest.perFault ?? [];
  const share = (correct: number, jobs: number) => (100 * correct) / Math.max(1, jobs);
  return {
    'per-fault.svg': renderBarChart({
      title: `Single-fault jobs finished correctly, by fault (${sizeLabel(largest)})`,
      categories: faults.map((row) => `${row.fault} (${row.jobs})`),
      series: [
        {
          label: recourse?.strategy ?? 'recourse',
          values: faults.map((row) => share(row.correct[recourse?.strategy ?? ''] ?? 0, row.jobs)),
        },
        {
          label: 'best baseline of the row',
          values: faults.map((row) => share(bestBaseline(row, largest).correct, row.jobs)),
        },
      ],
      unit: '% of the row, higher is better',
      format: (v) => `${v.toFixed(0)}%`,
    }),
    'correct-completions.svg': renderBarChart({
      title: 'Correct completions (in time, every write exactly once)',
      categories: strategies,
      series: perSize((m) => (100 * m.correctCompletions) / Math.max(1, m.jobs.total)),
      unit: '% of jobs, higher is better',
      format: (v) => `${v.toFixed(1)}%`,
    }),
    'duplicate-writes.svg': renderBarChart({
      title: 'Duplicate writes (landed effects beyond the first)',
      categories: strategies,
      series: perSize((m) => m.duplicateWrites),
      unit: 'count, lower is better',
    }),
    'wasted-attempts.svg': renderBarChart({
      title: 'Wasted attempts (unchanged re-sends of 422 / 403 / 412)',
      categories: strategies,
      series: perSize((m) => m.wastedAttempts),
      unit: 'count, lower is better',
    }),
    'outage-amplification.svg': renderBarChart({
      title: 'Load amplification in the outage window',
      categories: strategies,
      series: perSize((m) => m.outage.amplification),
      unit: 'requests per operation, goal ≤ 1.10',
      format: (v) => v.toFixed(2),
    }),
    'overhead.svg': renderBarChart({
      title: 'Success-path cost per call, on the build',
      categories: calls.map((c) => c.name),
      series: [{ label: 'ns per call', values: calls.map((c) => c.nsPerCall) }],
      unit: 'ns per call (median of rounds)',
      format: (v) => `${Math.round(v).toLocaleString('en-US')} ns`,
    }),
    'decision-path.svg': renderBarChart({
      title: 'Decision path and key derivation, on the build',
      categories: paths.map((p) => p.name),
      series: [{ label: 'ns per call', values: paths.map((p) => p.nsPerCall) }],
      unit: 'ns per call',
      format: (v) => `${v.toLocaleString('en-US')} ns`,
    }),
  };
}
