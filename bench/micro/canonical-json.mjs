// Micro-benchmark of canonicalJson on the BUILT JavaScript (a TypeScript loader adds a
// `__name()` call per closure and overstates per-call cost).
//
//   pnpm --filter @recourse/core build
//   node bench/micro/canonical-json.mjs                       # packages/core/dist
//   node bench/micro/canonical-json.mjs /tmp/other/canonical-json.js
//
// Prints ns per call for a few input shapes; run it twice and compare the medians.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const target = resolve(process.argv[2] ?? 'packages/core/dist/keys/canonical-json.js');
const { canonicalJson } = await import(pathToFileURL(target).href);

const inputs = {
  'refund input (5 keys, nested 3)': {
    paymentId: 'p-42',
    amount: 100,
    currency: 'usd',
    reason: undefined,
    metadata: { orderId: 'o-1', note: 'refund after timeout', tags: ['a', 'b'] },
  },
  'flat 20 keys': Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`field_${(i * 7) % 20}`, i % 3 ? i * 1.5 : `v${i}`]),
  ),
  'shell command': { command: 'git clone https://github.com/acme/app && cd app && ls' },
  'nested 4 deep, arrays': {
    query: { filter: { and: [{ eq: ['status', 'open'] }, { gt: ['created', 1700000000] }] } },
    page: { size: 50, cursor: 'eyJwYWdlIjoyfQ' },
    fields: ['id', 'title', 'labels', 'assignee'],
  },
};

function measure(value, encode = canonicalJson, budgetMs = 400) {
  // Warm up so the function is optimised before timing.
  for (let i = 0; i < 20_000; i += 1) encode(value);
  const samples = [];
  for (let round = 0; round < 7; round += 1) {
    let calls = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round((budgetMs / 7) * 1e6));
    let now = started;
    while (now < deadline) {
      for (let i = 0; i < 1_000; i += 1) encode(value);
      calls += 1_000;
      now = process.hrtime.bigint();
    }
    samples.push(Number(now - started) / calls);
  }
  samples.sort((a, b) => a - b);
  return samples[3];
}

console.log(`canonicalJson from ${target} (node ${process.version})`);
for (const [label, value] of Object.entries(inputs)) {
  const own = measure(value).toFixed(0).padStart(6);
  const reference = measure(value, JSON.stringify).toFixed(0).padStart(6);
  console.log(
    `${label.padEnd(34)} ${own} ns/call   (JSON.stringify, unsorted: ${reference} ns)  ${canonicalJson(value).length} chars`,
  );
}
