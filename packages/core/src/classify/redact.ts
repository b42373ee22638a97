const REDACTED = '[REDACTED]';

// Every pattern is a literal prefix followed by single character classes with bounded or
// possessive-like runs, so matching stays linear in the input (no nested quantifiers).
const tokenPatterns: readonly RegExp[] = [
  // PEM private key blocks; the body class excludes '-', so the run stops at the END line.
  /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[A-Za-z0-9+/=\s]{0,20000}(?:-----END [A-Z ]{0,40}PRIVATE KEY-----)?/g,
  // OpenAI / Anthropic style keys: sk-..., sk-proj-..., sk-svcacct-..., sk-ant-api03-...
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  // GitHub tokens.
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  // GitLab personal access tokens.
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  // AWS access key ids.
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  // Slack tokens.
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  // Stripe secret, restricted and publishable keys.
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
  // JSON Web Tokens (header and payload are base64url JSON, so both start with eyJ); the
  // signature is optional so that a token cut short is still caught.
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?/g,
];

// `Bearer <token>`: the token must look like one (a digit or token punctuation), so that
// prose such as "Basic authentication" stays intact.
const schemePattern = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/=-]{8,})/gi;
const tokenLike = /[0-9._~+/=-]/;

// `password=...`, `"api_key": "..."`, `token: ...`: keeps the name, hides the value.
const fieldPattern =
  /(passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|authorization|credentials?)(["']?\s*[:=]\s*)("(?:[^"\\\n]|\\.){0,2000}"|'[^'\n]{0,2000}'|[^\s&,;"'}<>\]]{1,2000})/gi;

// user:password@host in URLs.
const urlCredentialPattern = /(:\/\/[^\s/@:]{1,200}):[^\s/@]{1,200}@/g;

/** Replaces API keys, tokens, passwords and private keys in `text` with `[REDACTED]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of tokenPatterns) out = out.replace(pattern, REDACTED);
  out = out.replace(schemePattern, (match, scheme: string, space: string, token: string) =>
    tokenLike.test(token) ? `${scheme}${space}${REDACTED}` : match,
  );
  out = out.replace(fieldPattern, (_match, name: string, separator: string, value: string) => {
    const quote = value.startsWith('"') || value.startsWith("'") ? value[0] : '';
    return `${name}${separator}${quote}${REDACTED}${quote}`;
  });
  return out.replace(urlCredentialPattern, `$1:${REDACTED}@`);
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

const controlPattern =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * A redacted, single-line, size-bounded version of `text`, safe to log or show a model.
 * Long inputs are cut before any pattern runs, so a 10 MB message costs little.
 */
export function toSafeMessage(text: string, maxLength = 500): string {
  const limit = Math.max(1, Math.floor(maxLength));
  // Redaction and whitespace collapsing shrink text; keep a margin so the result still
  // fills `limit` when it can.
  const head = truncateText(text, limit * 4 + 1024);
  const cleaned = redactSecrets(head.replace(controlPattern, '')).replace(/\s+/g, ' ').trim();
  if (cleaned.length <= limit) return cleaned;
  let end = limit - 1;
  const code = cleaned.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
  return `${cleaned.slice(0, end)}…`;
}
