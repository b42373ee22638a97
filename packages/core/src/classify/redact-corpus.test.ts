import { describe, expect, it } from 'vitest';
import { redactSecrets, toSafeMessage } from './redact.js';
import { leakedSecret, lookAlikes, secretSamples } from './secret-corpus.test-harness.js';

const samples = secretSamples();
const lookalikes = lookAlikes();

// Measured over the whole corpus first, so that the run prints both rates even when a
// case fails; the per-case tests below then name the cases.
const falseNegatives = samples.filter((sample) => leakedSecret(sample, redactSecrets(sample.text)));
const falsePositives = lookalikes.filter((sample) => redactSecrets(sample.text) !== sample.text);
console.log(
  `[redaction corpus] ${samples.length} secrets: ${falseNegatives.length} false negatives; ` +
    `${lookalikes.length} look-alikes: ${falsePositives.length} false positives`,
);

describe('the redaction corpus', () => {
  it('is the size the docs claim', () => {
    expect(samples.length).toBeGreaterThanOrEqual(40);
    expect(lookalikes.length).toBeGreaterThanOrEqual(40);
    expect(new Set(samples.map((sample) => sample.name)).size).toBe(samples.length);
  });

  it('has no false negatives and no false positives', () => {
    expect(falseNegatives.map((sample) => sample.name)).toEqual([]);
    expect(falsePositives.map((sample) => sample.name)).toEqual([]);
  });

  it.each(samples.map((sample) => [sample.name, sample] as const))('hides %s', (_name, sample) => {
    const redacted = redactSecrets(sample.text);
    expect(leakedSecret(sample, redacted)).toBeUndefined();
    expect(redacted).toContain('[REDACTED]');
    // The safe message the model sees: also redacted, and redacting it again is a no-op.
    const safe = toSafeMessage(sample.text, 4000);
    expect(leakedSecret(sample, safe)).toBeUndefined();
    expect(redactSecrets(redacted)).toBe(redacted);
  });

  it.each(samples.map((sample) => [sample.name, sample] as const))(
    'hides %s inside surrounding text and JSON',
    (_name, sample) => {
      const inText = `before ${sample.text} after`;
      const inJson = JSON.stringify({ error: { message: sample.text } });
      expect(leakedSecret(sample, redactSecrets(inText))).toBeUndefined();
      expect(leakedSecret(sample, redactSecrets(inJson))).toBeUndefined();
    },
  );

  it.each(lookalikes.map((sample) => [sample.name, sample.text] as const))(
    'leaves %s intact',
    (_name, text) => {
      expect(redactSecrets(text)).toBe(text);
    },
  );
});
