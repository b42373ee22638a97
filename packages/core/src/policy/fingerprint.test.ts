import { describe, expect, it } from 'vitest';
import { failureFingerprint, normalizeMessage } from './fingerprint.js';

const validation = (message: string) => ({
  failureClass: 'VALIDATION' as const,
  code: 'INVALID_INPUT',
  message,
});

describe('failureFingerprint', () => {
  it('is the same failure again across request ids, timestamps and quoted values', () => {
    const a = failureFingerprint({
      tool: 'extract',
      input: { doc: 1, mode: 'x' },
      classification: validation(
        'req_8f3k2l9d at 2026-11-29T10:00:00Z: field "due_date" missing (id 42)',
      ),
    });
    const b = failureFingerprint({
      tool: 'extract',
      input: { mode: 'x', doc: 1 },
      classification: validation(
        'req_77aa8c0b at 2026-11-29T10:05:13Z: field "due_date" missing (id 97)',
      ),
    });
    expect(a).toBe(b);
  });

  it('differs when the tool, arguments, class or code differ', () => {
    const base = {
      tool: 'extract',
      input: { doc: 1 },
      classification: validation('missing field'),
    };
    const fp = failureFingerprint(base);
    expect(failureFingerprint({ ...base, tool: 'other' })).not.toBe(fp);
    expect(failureFingerprint({ ...base, input: { doc: 2 } })).not.toBe(fp);
    expect(
      failureFingerprint({
        ...base,
        classification: { ...base.classification, code: 'NO_SUCH_TOOL' },
      }),
    ).not.toBe(fp);
    expect(
      failureFingerprint({
        ...base,
        classification: { ...base.classification, failureClass: 'PERMANENT' },
      }),
    ).not.toBe(fp);
  });

  it('normalises UUIDs, hex ids and numbers', () => {
    expect(
      normalizeMessage('Order 6f1c2d3e-1111-4222-8333-444455556666 v12 sha deadbeefcafe'),
    ).toBe('order <uuid> v<n> sha <hex>');
  });
});
