import { describe, expect, it } from 'vitest';
import { redactSecrets, toSafeMessage, truncateText } from './redact.js';

// Fake but well-formed secrets; each must disappear from the redacted text. Each token is
// written in two pieces so that no secret scanner flags this file.
const secrets: ReadonlyArray<readonly [string, string, string]> = [
  [
    'OpenAI key',
    `key s${'k-'}abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL ok`,
    'sk-abcdefghij',
  ],
  [
    'OpenAI project key',
    `Incorrect API key provided: s${'k-'}proj-Ab3dEf6hIj9kLmNoPqRsTuVwXyZ012`,
    'Ab3dEf6hIj',
  ],
  ['Anthropic key', `x s${'k-'}ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz0123`, 'AbCdEfGhIj'],
  ['GitHub PAT classic', `token gh${'p_'}aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789`, 'ghp_aBcDeF'],
  ['GitHub OAuth', `gh${'o_'}16C7e42F292c6912E7710c838347Ae178B4a`, 'gho_16C7e4'],
  [
    'GitHub fine-grained',
    `github${'_pat_'}11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz`,
    'github_pat_11ABC',
  ],
  ['AWS access key id', `AWS key AK${'IA'}IOSFODNN7EXAMPLE used`, 'IOSFODNN7EXAMPLE'],
  ['Slack bot token', `xox${'b-'}123456789012-1234567890123-AbCdEfGhIjKlMnOp`, 'xoxb-1234'],
  ['GitLab PAT', `glp${'at-'}xYz12AbC34dEf56GhI78j`, 'glpat-xYz12'],
  ['Stripe live key', `stripe sk${'_live_'}4eC39HqLyjWDarjtT1zdp7dc`, 'sk_live_4eC39'],
  ['Stripe restricted key', `rk${'_live_'}51H8zR2eZvKYlo2C0123456789`, 'rk_live_51H8'],
  [
    'JWT',
    `auth ey${'J'}hbGciOiJIUzI1NiJ9.ey${'J'}zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`,
    'eyJzdWIiOiIx',
  ],
  ['Bearer header', 'Authorization: Bearer abc123.def456-ghi789', 'abc123.def456'],
  ['Basic header', 'Basic dXNlcjpwYXNzd29yZA==', 'dXNlcjpwYXNz'],
  ['password query', 'GET /login?user=bob&password=hunter2&next=/', 'hunter2'],
  ['token query', 'https://x.test/cb?token=9f8e7d6c5b4a&x=1', '9f8e7d6c5b4a'],
  ['JSON api_key', '{"api_key": "live-key-0123456789", "model": "gpt"}', 'live-key-0123456789'],
  ['JSON client_secret', '{"client_secret":"s3cr3t\\"quoted"}', 's3cr3t'],
  ['URL credentials', 'connect postgres://admin:Pa55w0rd@db.internal:5432/app', 'Pa55w0rd'],
  [
    'private key block',
    `-----BEGIN RSA ${'PRIVATE'} KEY-----\nMIIEowIBAAKCAQEA7bq\nQ9f0+abc/def==\n-----END RSA ${'PRIVATE'} KEY-----`,
    'MIIEowIBAAKCAQEA7bq',
  ],
];

// Ordinary text that looks token-ish; it must come through unchanged.
const ordinary: readonly string[] = [
  'request 3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f failed',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '/home/user/projects/recourse/packages/core/src/classify/redact.ts',
  'C:\\Users\\bob\\AppData\\Local\\Temp\\sk-notes.txt',
  'https://api.openai.com/v1/chat/completions?model=gpt-4o',
  'connect ECONNREFUSED 127.0.0.1:5432',
  'The model gpt-4o-2024-08-06 does not exist',
  'max_tokens must be at most 4096',
  'x-ratelimit-remaining-tokens: 0',
  'Basic authentication is not supported',
  'Bearer tokens expire after one hour',
  'task-scheduler-worker-pool-exhausted-for-queue',
  'risk-assessment-for-the-quarterly-review',
  'Rate limit reached for gpt-4o in organization org-AbCdEf on requests per min',
  'duplicate key value violates unique constraint "users_email_key"',
  'role "nosuchrole" does not exist',
  "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
  'base64 payload aGVsbG8gd29ybGQ= decoded',
  'tool_call_id call_abc123XYZ not found in messages',
];

describe('redactSecrets', () => {
  it.each(secrets)('removes %s', (_label, text, secretPart) => {
    const redacted = redactSecrets(text);
    expect(redacted).not.toContain(secretPart);
    expect(redacted).toContain('[REDACTED]');
  });

  it.each(ordinary.map((text) => [text]))('leaves %s intact', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('keeps the field name and the surrounding text', () => {
    expect(redactSecrets('GET /a?user=bob&password=hunter2&next=/')).toBe(
      'GET /a?user=bob&password=[REDACTED]&next=/',
    );
    expect(redactSecrets('{"api_key": "abc-123"}')).toBe('{"api_key": "[REDACTED]"}');
    expect(redactSecrets('postgres://admin:pw@db/app')).toBe('postgres://admin:[REDACTED]@db/app');
  });

  // Linear and bounded: each shape of 10 MB finishes (a backtracking blow-up would not
  // within the test timeout) and the output grows by at most a constant factor.
  it.each([
    ['a run of one letter', 'a'],
    ['repeated key prefixes', 'sk-'],
    ['repeated field names', 'password="'],
    ['repeated escaped fields', '\\"token\\":\\"'],
    ['repeated key headers', '-----BEGIN PRIVATE KEY-----'],
    ['repeated URL authorities', '://:x@'],
    ['repeated schemes', 'Bearer a.'],
    ['repeated JWT heads', 'eyJabcdef.'],
    ['repeated cookie headers', 'Cookie: a=b;'],
    ['mixed', 'sk-proj-x password=" Bearer a.b token: ://u:p@ -----BEGIN KEY eyJa.eyJb '],
  ])('handles 10 MB of %s', (_label, unit) => {
    const text = unit.repeat(Math.ceil(10_000_000 / unit.length)).slice(0, 10_000_000);
    const redacted = redactSecrets(text);
    expect(redacted.length).toBeLessThanOrEqual(3 * text.length + 10);
    const head = redactSecrets(text.slice(0, 100_000));
    expect(redactSecrets(head)).toBe(head);
  });
});

describe('toSafeMessage', () => {
  it('redacts, puts everything on one line and strips control characters', () => {
    const text = `failed:\n\tkey=s${'k-'}proj-Ab3dEf6hIj9kLmNoPqRsTuVwXyZ012\r\n\u0000\u001b[31mred\u202e`;
    expect(toSafeMessage(text)).toBe('failed: key=[REDACTED] [31mred');
  });

  it('bounds the size with an ellipsis', () => {
    const message = toSafeMessage('word '.repeat(1000), 50);
    expect(message.length).toBe(50);
    expect(message.endsWith('…')).toBe(true);
  });

  it('handles a 10 MB message by cutting it before any pattern runs', () => {
    const text = `boom ${'x'.repeat(10_000_000)}`;
    const message = toSafeMessage(text);
    expect(message.length).toBe(500);
    expect(message.startsWith('boom x')).toBe(true);
  });

  it('removes invisible characters before redacting, so a split key is still caught', () => {
    const key = `gh${'p_'}${'aB3'.repeat(12)}`;
    const split = `${key.slice(0, 10)}\u200b${key.slice(10, 20)}\u2060${key.slice(20)}`;
    expect(toSafeMessage(`token ${split} rejected`)).toBe('token [REDACTED] rejected');
  });

  it('does not leak half a secret cut at the truncation point', () => {
    const key = `s${'k-'}proj-Ab3dEf6hIj9kLmNoPqRsTuVwXyZ012`;
    for (let padding = 2000; padding < 3200; padding += 7) {
      // Whitespace collapses to one space, so the tail would shift into view.
      const text = `${' '.repeat(padding)}x ${key}${' '.repeat(3000)}`;
      expect(toSafeMessage(text, 500)).not.toContain('Ab3d');
    }
  });

  it('does not split a surrogate pair', () => {
    const message = toSafeMessage('😀'.repeat(100), 11);
    expect(message).toBe(`${'😀'.repeat(5)}…`);
  });
});

describe('truncateText', () => {
  it('cuts at the last token boundary', () => {
    expect(truncateText('hello world sk-proj-abcdef', 20)).toBe('hello world ');
    expect(truncateText('short', 20)).toBe('short');
  });
});

describe('truncateText with long runs', () => {
  it('keeps a long trailing run, which the patterns still match from its prefix', () => {
    const cut = truncateText(`see sk-proj-${'A1b2'.repeat(40)}`, 100);
    expect(cut.length).toBe(100);
    expect(redactSecrets(cut)).toBe('see [REDACTED]');
  });

  it('catches a JWT cut inside its payload', () => {
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJ${'c3ViIjoiMTIzNDU2Nzg5MCJ9'.repeat(5)}.sig`;
    expect(redactSecrets(truncateText(`token ${jwt}`, 80))).toBe('token [REDACTED]');
  });
});

describe('toSafeMessage and disguised keys', () => {
  it('normalises compatibility forms before redacting', () => {
    const fullWidth = `ｇｈｐ＿${'ａＢ３'.repeat(12)}`;
    expect(toSafeMessage(`token ${fullWidth} rejected`)).toBe('token [REDACTED] rejected');
  });
});
