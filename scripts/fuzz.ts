// `pnpm fuzz [--runs N] [--seed S] [--only WORD]`: every fuzz target of
// packages/core/src/fuzz.test-harness.ts, 100,000 runs each by default, with a fixed
// seed so that a run can be repeated. Prints runs and failures per target; exits 1 when
// any property fails, with its shrunk counterexample.
import fc from 'fast-check';
import { fuzzTargets } from '../packages/core/src/fuzz.test-harness.js';

const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
};
const numRuns = Number(option('runs') ?? 100_000);
const seed = Number(option('seed') ?? 20_261_130);
const only = option('only');

if (!Number.isInteger(numRuns) || numRuns <= 0)
  throw new Error('--runs must be a positive integer');
if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');

console.log(`fuzz: ${numRuns.toLocaleString('en-US')} runs per target, seed ${seed}`);
let failures = 0;
for (const target of fuzzTargets) {
  if (only && !target.name.includes(only)) continue;
  const started = performance.now();
  // The targets are synchronous properties, so the check is too.
  const details = fc.check(target.property(), { numRuns, seed }) as fc.RunDetails<unknown[]>;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const runs = details.numRuns.toLocaleString('en-US');
  if (details.failed) {
    failures += 1;
    console.log(`FAIL  ${target.name}: failed after ${runs} runs (${seconds} s)`);
    console.log(`      counterexample: ${fc.stringify(details.counterexample)}`);
    console.log(`      ${String(details.errorInstance ?? 'no error')}`);
  } else {
    console.log(`ok    ${target.name}: ${runs} runs, 0 failures (${seconds} s)`);
  }
}
console.log(failures === 0 ? 'fuzz: all targets passed' : `fuzz: ${failures} target(s) failed`);
process.exitCode = failures === 0 ? 0 : 1;
