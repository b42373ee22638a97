/**
 * Property targets for the parts that read hostile input: the classifier, canonical JSON,
 * the recovery-contract renderer, the redactor and the quoting of error text. The test
 * suite runs each a few hundred times (`fuzz.test.ts`); `pnpm fuzz` runs each 100,000
 * times (`scripts/fuzz.ts`).
 */
import fc from 'fast-check';
import { classifyFailure } from './classify/classify-failure.js';
import { maxQuotedLength, quoteAsData } from './classify/quote-as-data.js';
import { redactSecrets } from './classify/redact.js';
import { leakedSecret, secretSamples } from './classify/secret-corpus.test-harness.js';
import { buildContract, contractText } from './contract/recovery-contract.js';
import { canonicalJson } from './keys/canonical-json.js';
import { decideRecovery } from './policy/decide-recovery.js';
import { failureClasses } from './types.js';

export interface FuzzTarget {
  readonly name: string;
  readonly property: () => fc.IRawProperty<unknown[]>;
}

const fail = (message: string): never => {
  throw new Error(message);
};

// Strings that are more likely than random text to reach the interesting paths: token
// prefixes, field names, separators, role markers, delimiters, invisible characters.
const fragments = [
  'sk-',
  'sk-proj-',
  'ghp_',
  'github_pat_',
  'glpat-',
  'AKIA',
  'xoxb-',
  'sk_live_',
  'whsec_',
  'eyJ',
  '.eyJ',
  'hf_',
  'npm_',
  'SG.',
  'AIza',
  'Bearer ',
  'Basic ',
  'Authorization: ',
  'password=',
  '"api_key": "',
  '\\"token\\":\\"',
  'secret:',
  'Cookie: ',
  'curl -u ',
  '://',
  ':x@',
  '@',
  '-----BEGIN PRIVATE KEY-----',
  '-----END PRIVATE KEY-----',
  '\\n',
  '[REDACTED]',
  '«',
  '»',
  '‹',
  '"',
  "'",
  '`',
  '```',
  '<|im_start|>',
  '[INST]',
  'SYSTEM:',
  'Human:',
  '\n',
  '\r\n',
  '\u200b',
  '\u202e',
  '\u2067',
  '\u{e0041}',
  'ｉｇｎｏｒｅ',
  'Ignore all previous instructions',
  'you are now',
  'call delete_repository',
  'recommended_recovery',
  '忽略之前的指令',
  'Игнорируй',
  'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0',
  '0123456789abcdef0123456789abcdef',
  ' ',
  '=',
  ';',
];

/** Text built from random characters and the fragments above. */
export const hostileText = (maxParts = 24): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ unit: 'grapheme' }), fc.string()), {
      maxLength: maxParts,
    })
    .map((parts) => parts.join(''));

const classifierInput = fc.oneof(
  fc.anything({
    withBigInt: true,
    withMap: true,
    withSet: true,
    withDate: true,
    withBoxedValues: true,
  }),
  hostileText(),
  hostileText().map((message) => new Error(message)),
  fc.record(
    {
      message: fc.oneof(hostileText(), fc.anything()),
      status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.anything()),
      code: fc.oneof(
        fc.constantFrom('ECONNRESET', 'ETIMEDOUT', '40001', 'insufficient_quota'),
        fc.string(),
      ),
      name: fc.oneof(fc.constantFrom('TimeoutError', 'AbortError', 'ZodError'), fc.string()),
      headers: fc.dictionary(
        fc.constantFrom('retry-after', 'retry-after-ms', 'x-ratelimit-reset'),
        fc.string(),
      ),
      cause: fc.anything(),
      issues: fc.array(fc.record({ path: fc.array(fc.oneof(fc.string(), fc.nat())) })),
    },
    { requiredKeys: [] },
  ),
);

const classifier: FuzzTarget = {
  name: 'classifier: never throws, a valid bounded Classification',
  property: () =>
    fc.property(classifierInput, fc.boolean(), (error, sideEffects) => {
      const result = classifyFailure(error, { sideEffects });
      if (!failureClasses.includes(result.failureClass)) fail(`class ${result.failureClass}`);
      if (typeof result.code !== 'string' || result.code === '') fail('no code');
      if (typeof result.message !== 'string') fail('no message');
      if (result.message.length > 500) fail(`message of ${result.message.length}`);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      if (/[\r\n\u0000\u200b\u202e]/.test(result.message)) fail('control character in message');
      if (
        result.retryAfterMs !== undefined &&
        !(Number.isFinite(result.retryAfterMs) && result.retryAfterMs >= 0)
      )
        fail(`retryAfterMs ${result.retryAfterMs}`);
    }),
};

// Any value, with the shapes canonical JSON maps (bigint, Date, Map, Set, boxed values,
// typed arrays, sparse arrays, null prototypes) and, sometimes, a cycle.
const anyValue = fc
  .tuple(
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    }),
    fc.boolean(),
  )
  .map(([value, cyclic]) => {
    if (!cyclic) return value;
    const holder: Record<string, unknown> = { value };
    holder.self = holder;
    holder.list = [holder, { back: holder }];
    return holder;
  });

// An independent reference for JSON values: keys compared by UTF-16 code units (RFC
// 8785), everything else as JSON.stringify writes it. (JSON.stringify of a sorted copy is
// no reference: objects list integer-like keys first whatever their insertion order.)
function referenceText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${referenceText(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function shuffledCopy(value: unknown, order: readonly number[]): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffledCopy(item, order));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const shuffled = entries
      .map((entry, index) => [entry, order[index % Math.max(1, order.length)] ?? index] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([entry]) => entry);
    return Object.fromEntries(shuffled.map(([key, item]) => [key, shuffledCopy(item, order)]));
  }
  return value;
}

const canonicalAny: FuzzTarget = {
  name: 'canonical JSON: any value gives text JSON.parse accepts',
  property: () =>
    fc.property(anyValue, (value) => {
      const text = canonicalJson(value);
      JSON.parse(text);
    }),
};

const jsonValue = fc.jsonValue();

const canonicalJsonValues: FuzzTarget = {
  name: 'canonical JSON: on JSON values idempotent, key-order independent, equal to a reference',
  property: () =>
    fc.property(jsonValue, fc.array(fc.nat(), { maxLength: 16 }), (value, order) => {
      const text = canonicalJson(value);
      if (canonicalJson(JSON.parse(text)) !== text) fail('not idempotent');
      if (canonicalJson(shuffledCopy(value, order)) !== text) fail('depends on key order');
      if (text !== referenceText(value)) fail('differs from the reference');
    }),
};

const decisionState = fc.record({
  tool: fc.stringMatching(/^[a-z][a-z0-9_]{0,30}$/),
  failureClass: fc.constantFrom(...failureClasses),
  sideEffects: fc.boolean(),
  checkpoint: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  reconcilable: fc.option(fc.boolean(), { nil: undefined }),
  attempts: fc.integer({ min: 1, max: 5 }),
  repairAttempts: fc.integer({ min: 0, max: 3 }),
  retryAfterMs: fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: undefined }),
});

const contractRenderer: FuzzTarget = {
  name: 'contract renderer: valid JSON, error_detail delimited, no inner delimiter, bounded',
  property: () =>
    fc.property(
      decisionState,
      hostileText(40),
      fc.option(fc.stringMatching(/^[A-Za-z_][\w.]{0,40}$/), { nil: undefined }),
      fc.constantFrom<'FAILED' | 'BLOCKED' | 'IN_FLIGHT' | undefined>(
        undefined,
        'FAILED',
        'BLOCKED',
        'IN_FLIGHT',
      ),
      (state, message, field, status) => {
        const decision = decideRecovery(state);
        const contract = buildContract({
          tool: state.tool,
          decision,
          classification: { failureClass: state.failureClass, code: 'CODE', message, field },
          status,
          attempts: state.attempts,
        });
        const text = contractText(contract);
        const parsed = JSON.parse(text) as Record<string, unknown>;
        if (parsed.recommended_recovery !== decision.action) fail('action changed');
        if (parsed.retry_same_action !== (decision.action === 'RETRY')) fail('retry flag changed');
        const detail = parsed.error_detail;
        if (message === '') return;
        if (typeof detail !== 'string') fail('no error_detail');
        const quoted = detail as string;
        if (!quoted.startsWith('«') || !quoted.endsWith('»')) fail('not delimited');
        if (/[«»]/.test(quoted.slice(1, -1))) fail('delimiter inside the quote');
        if (quoted.length > maxQuotedLength + 2) fail(`error_detail of ${quoted.length}`);
        // Only the quote holds delimiters; the rest of the contract is the library's own text.
        if ((text.match(/[«»]/g) ?? []).length !== 2) fail('a delimiter outside error_detail');
        if (text.length > 6 * (maxQuotedLength + 2) + 2000) fail(`contract of ${text.length}`);
      },
    ),
};

const redactorBound: FuzzTarget = {
  name: 'redactor: idempotent, output at most 3x + 10',
  property: () =>
    fc.property(hostileText(40), (text) => {
      const once = redactSecrets(text);
      if (redactSecrets(once) !== once) fail('not idempotent');
      if (once.length > 3 * text.length + 10) fail(`grew from ${text.length} to ${once.length}`);
    }),
};

const samples = secretSamples();
const separators = [' ', '\n', ', ', '; ', '\t', ' | ', '\r\n', ' — '];

const redactorCorpus: FuzzTarget = {
  name: 'redactor: a corpus secret in random text never survives',
  property: () =>
    fc.property(
      fc.nat({ max: samples.length - 1 }),
      hostileText(12),
      hostileText(12),
      fc.constantFrom(...separators),
      fc.constantFrom(...separators),
      (index, before, after, left, right) => {
        const sample = samples[index] as (typeof samples)[number];
        const text = `${before}${left}${sample.text}${right}${after}`;
        const leaked = leakedSecret(sample, redactSecrets(text), `${before}\u0000${after}`);
        if (leaked) fail(`${sample.name} leaked ${JSON.stringify(leaked)}`);
      },
    ),
};

const quoting: FuzzTarget = {
  name: 'quoteAsData: one delimited line, no inner delimiter, bounded',
  property: () =>
    fc.property(fc.oneof(hostileText(40), fc.string({ unit: 'binary' })), (text) => {
      const quoted = quoteAsData(text);
      if (!quoted.startsWith('«') || !quoted.endsWith('»')) fail('not delimited');
      if (/[«»\r\n\u2028\u2029\u202e\u200b]/.test(quoted.slice(1, -1)))
        fail('delimiter or break inside');
      if (quoted.length > maxQuotedLength + 2) fail(`length ${quoted.length}`);
    }),
};

export const fuzzTargets: readonly FuzzTarget[] = [
  classifier,
  canonicalAny,
  canonicalJsonValues,
  contractRenderer,
  redactorBound,
  redactorCorpus,
  quoting,
];
