import { writeFileSync } from 'node:fs';
import { runOverhead } from './run-overhead.js';

// The overhead benchmark's own process, started by `overhead-on-build.ts` as
// `node --expose-gc dist/main.js <iterations> <rounds> <out.json>` from the tsc output:
// plain JavaScript, packages resolved through their `default` export (their dist).
const [iterations, rounds, output] = process.argv.slice(2);
if (!iterations || !rounds || !output) {
  throw new Error('usage: node --expose-gc dist/main.js <iterations> <rounds> <out.json>');
}
// Refuse to measure the sources: the point of this process is the build.
const resolved = import.meta.resolve('@recourse/ai-sdk');
if (!resolved.includes('/dist/')) {
  throw new Error(`overhead: @recourse/ai-sdk resolved to ${resolved}, not to its build`);
}
const result = await runOverhead({
  iterations: Number(iterations),
  rounds: Number(rounds),
  command: process.env.RECOURSE_OVERHEAD_COMMAND ?? 'node --expose-gc dist/main.js',
  log: (line) => console.log(`[bench] ${line}`),
});
writeFileSync(output, `${JSON.stringify(result)}\n`);
