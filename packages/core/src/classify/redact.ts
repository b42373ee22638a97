import { secretRules } from './redact-rules.js';

const REDACTED = '[REDACTED]';

// A private key block: from its BEGIN line through its END line, or, when the END line
// is missing (the text was cut), through the end of the text. Also inside JSON strings,
// where the line breaks are the two characters `\n` (a GCP service-account key file).
const privateKeyHeader = /-----BEGIN[ A-Za-z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/gi;
const privateKeyFooter = /-----END[ A-Za-z0-9]{0,40}-----/iy;

function redactPrivateKeys(text: string): string {
  if (!text.includes('-----')) return text;
  let out = '';
  let from = 0;
  privateKeyHeader.lastIndex = 0;
  for (let found = privateKeyHeader.exec(text); found; found = privateKeyHeader.exec(text)) {
    const end = text.indexOf('-----END', found.index + found[0].length);
    out += text.slice(from, found.index) + REDACTED;
    if (end < 0) return out;
    privateKeyFooter.lastIndex = end;
    from = privateKeyFooter.test(text) ? privateKeyFooter.lastIndex : end + 8;
    privateKeyHeader.lastIndex = from;
  }
  return out + text.slice(from);
}

// Names of fields that hold credentials, and the separator after such a name.
const fieldNames =
  '(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|(?:access|account|private|signing)[_-]?key' +
  '|authorization|credentials?|signature|(?<![A-Za-z])(?:pass|pwd|auth|sig))';
// the separator, with the quote of a JSON key, also of JSON escaped inside JSON
const fieldSeparator = '\\\\{0,8}["\']?\\s{0,8}[:=]\\s{0,8}';
// `Bearer <token>` and the other HTTP schemes: the credential must look like one (a digit,
// token punctuation, or a long run), so that prose such as "Basic authentication" or
// "Bearer tokens expire" stays intact; and it is not the name of a field that follows
// (`Bearer  api_key = …`), whose value is the one to hide.
const schemePattern = new RegExp(
  '\\b(Bearer|Basic|Digest|Negotiate|NTLM|Token|Bot)(\\s{1,8})' +
    `(?![\\w.-]{0,40}?${fieldNames}${fieldSeparator})([A-Za-z0-9._~+/=-]{8,8192})`,
  'gi',
);
const schemeWords = /bearer|basic|digest|negotiate|ntlm|token|bot/i;
const schemeWord = /^(?:Bearer|Basic|Digest|Negotiate|NTLM|Token|Bot)$/i;
const looksLikeCredential = (token: string) => /[0-9._~+/=]/.test(token) || token.length >= 24;

// `password=...`, `"api_key": "..."`, `token: ...`, `{\"secret\":\"...\"}`: keeps the
// name, hides the value. Short names need a non-letter before them (`db_pass`, not
// `bypass`); the long ones may end a longer name (`clientSecret`, `x-auth-token`).
const fieldPattern = new RegExp(
  [
    `(${fieldNames}${fieldSeparator})`,
    // the value: a JSON string (possibly cut short), a single-quoted string, the opening
    // of an escaped string (its closing quote stays in the text), or a bare run up to
    // the next delimiter
    '("(?:[^"\\\\\\r\\n]|\\\\.){0,8192}"?|\'[^\'\\r\\n]{0,2000}\'|\\\\{1,8}"[^"\\\\\\r\\n]{0,2000}',
    // (a bare run is not the name of the next field: in `password= aws_secret_key = …`
    // the run after `password=` is a name, and its value is the one to hide)
    `|(?![\\w.-]{0,40}?${fieldNames}${fieldSeparator})`,
    '[^\\s&,;"\'`}<>\\[\\]{\\\\=][^\\s&,;"\'`}<>\\]\\\\]{0,1999})',
  ].join(''),
  'gi',
);

const fieldWords = /pass|pwd|secret|token|key|auth|credential|sig/i;

function redactField(match: string, head: string, value: string): string {
  let open = '';
  let close = '';
  let inner = value;
  if (value.startsWith('"') || value.startsWith("'")) {
    open = value.charAt(0);
    close = value.length > 1 && value.endsWith(open) ? open : '';
    inner = value.slice(1, value.length - close.length);
  } else if (value.startsWith('\\')) {
    open = value.slice(0, value.indexOf('"') + 1);
    inner = value.slice(open.length);
  }
  if (inner === '' || inner === REDACTED) return match;
  // `Authorization: Bearer …`: the scheme stays, the credential after it was (or is) hidden.
  if (schemeWord.test(inner)) return match;
  const scheme = /^([A-Za-z]{2,12}) /.exec(inner);
  const kept = scheme && schemeWord.test(scheme[1] as string) ? `${scheme[1]} ` : '';
  return `${head}${open}${kept}${REDACTED}${close}`;
}

// `Cookie:` and `Set-Cookie:` headers carry session credentials: the whole value goes.
const cookiePattern =
  /\b((?:set-)?cookie\s{0,8}:\s{0,8})[^\s;,]{1,2000}(?:;\s?[^\s;,]{1,2000}){0,50}/gi;

// user:password@ in URLs; the user may be empty (`redis://:pw@host`) and the password
// runs to the last `@` of the authority (an unencoded `@` in a password is common).
const urlCredentialPattern = /(:\/\/[^\s/:?#]{0,200}):[^\s/?#]{1,200}@/g;

/**
 * Replaces API keys, tokens, passwords, private keys and credentials in URLs, headers and
 * fields of `text` with `[REDACTED]`. Linear in the length of the text; applying it again
 * changes nothing.
 */
export function redactSecrets(text: string): string {
  // One pass can leave text that a pattern reads differently the second time (a marker
  // next to what was a user name); a few passes reach a fixed point, and text without
  // secrets stops after the first.
  let out = text;
  for (let round = 0; round < 4; round += 1) {
    const next = redactOnce(out);
    if (next === out) break;
    out = next;
  }
  return out;
}

// An AWS Secrets Manager ARN names a secret and holds none: `…:secret:prod/db-password-AbCdEf`
// (with an ECS JSON key, version stage and id after it) stays readable.
const secretArnPattern =
  /\barn:aws[a-z-]{0,20}:secretsmanager:[a-z0-9-]{0,30}:\d{12}:secret:[\w/+=.@-]{1,512}(?::[\w-]{0,100}){0,3}/g;

/** Whether `offset` lies inside one of the spans. */
const inside = (spans: readonly (readonly [number, number])[], offset: number) =>
  spans.some(([start, end]) => offset >= start && offset < end);

function redactOnce(text: string): string {
  let out = redactPrivateKeys(text);
  for (const { keyword, pattern, accept } of secretRules) {
    if (keyword !== undefined && !out.includes(keyword)) continue;
    out = out.replace(pattern, (match: string, kept?: unknown) => {
      if (accept !== undefined && !accept(match)) return match;
      return typeof kept === 'string' ? `${kept}${REDACTED}` : REDACTED;
    });
  }
  // The passes below try a match at many positions; text without their words skips them.
  if (schemeWords.test(out)) {
    out = out.replace(schemePattern, (match, scheme: string, space: string, token: string) =>
      looksLikeCredential(token) ? `${scheme}${space}${REDACTED}` : match,
    );
  }
  if (fieldWords.test(out)) {
    const arns = out.includes(':secretsmanager:')
      ? [...out.matchAll(secretArnPattern)].map((m) => [m.index, m.index + m[0].length] as const)
      : [];
    out = out.replace(fieldPattern, (match: string, head: string, value: string, at: number) =>
      inside(arns, at) ? match : redactField(match, head, value),
    );
  }
  if (/cookie/i.test(out)) out = out.replace(cookiePattern, `$1${REDACTED}`);
  return out.includes('://') ? out.replace(urlCredentialPattern, `$1:${REDACTED}@`) : out;
}

const tokenCharacter = /[A-Za-z0-9_\-.+/=~:@]/;

// A cut run at least this long still holds a secret's prefix and enough of its body for
// the patterns above to match; a shorter one may be half a secret, so it is dropped.
const keptRunLength = 64;

/**
 * Cuts `text` to at most `maxLength` characters without leaving a short partial token at
 * the cut: half a secret would no longer match the redaction patterns.
 */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const cut = text.slice(0, Math.max(0, maxLength));
  let start = cut.length;
  while (start > 0 && tokenCharacter.test(cut.charAt(start - 1))) start -= 1;
  return cut.length - start >= keptRunLength ? cut : cut.slice(0, start);
}

// Control characters, bidi overrides and invisible characters (also Unicode tag
// characters). Removed before redaction, so that a key split by a zero-width space is
// still one run the patterns see.
const invisiblePattern =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]|\uDB40[\uDC00-\uDDEF]/g;

/**
 * A redacted, single-line, size-bounded version of `text`, safe to log or show a model.
 * Long inputs are cut before any pattern runs, so a 10 MB message costs little.
 */
export function toSafeMessage(text: string, maxLength = 500): string {
  const limit = Math.max(1, Math.floor(maxLength));
  // Redaction and whitespace collapsing shrink text; keep a margin so the result still
  // fills `limit` when it can.
  const head = truncateText(text, limit * 4 + 1024);
  // NFKC first: a key written in full-width or other compatibility forms is a plain key
  // to a model, so it must be one to the patterns too.
  const normalised = head.normalize('NFKC').replace(invisiblePattern, '');
  const cleaned = redactSecrets(normalised).replace(/\s+/g, ' ').trim();
  if (cleaned.length <= limit) return cleaned;
  let end = limit - 1;
  const code = cleaned.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
  return `${cleaned.slice(0, end)}…`;
}
