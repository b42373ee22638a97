import { canonicalJson } from '../keys/canonical-json.js';
import { hashText } from '../keys/idempotency-key.js';
import type { Classification } from '../types.js';

const volatile: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}[t ][\d:.]+(?:z|[+-]\d{2}:?\d{2})?/gi, '<time>'],
  [/"[^"]{0,200}"|'[^']{0,200}'|`[^`]{0,200}`/g, '<value>'],
  [/\b(?:req|request|trace|span|id)[_-]?[a-z0-9]{6,}\b/gi, '<id>'],
  [/\b[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\d+(?:\.\d+)?/g, '<n>'],
];

/** Error text with ids, numbers, UUIDs, timestamps and quoted values stripped. */
export function normalizeMessage(message: string): string {
  let text = message.slice(0, 2000).toLowerCase();
  for (const [pattern, replacement] of volatile) text = text.replace(pattern, replacement);
  return text.replace(/\s+/g, ' ').trim();
}

export interface FingerprintParts {
  tool: string;
  input: unknown;
  classification: Pick<Classification, 'failureClass' | 'code' | 'message'>;
}

/**
 * "The same failure again": tool, normalised arguments, failure class, code and
 * normalised message. Stable across attempts, call ids and model turns, so repairs can
 * be counted and a poison step recognised (repeated-failure detection).
 */
export function failureFingerprint({ tool, input, classification }: FingerprintParts): string {
  return hashText(
    [
      tool,
      canonicalJson(input),
      classification.failureClass,
      classification.code,
      normalizeMessage(classification.message),
    ].join('\u0000'),
    24,
  );
}
