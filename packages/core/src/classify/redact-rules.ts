/**
 * Formats of credentials that carry their own prefix, after the rule sets of gitleaks
 * (`config/gitleaks.toml`) and `@secretlint/secretlint-rule-preset-recommend`, loosened
 * where a vendor's length or alphabet varies (a redactor must not miss a key that a
 * scanner would merely skip).
 *
 * Each pattern is a literal prefix (or a fixed-length run and a literal) followed by
 * single character classes with bounded repetition, so matching is linear in the text:
 * no nested or adjacent ambiguous quantifiers. A pattern that starts with a literal is
 * scanned for by the regular expression engine itself; one that starts with a character
 * class tries a run at every position, so it names a literal `keyword` the text must
 * contain for the pattern to run at all. When the pattern has a capture group, that group
 * is kept and only the rest is hidden.
 */
export interface SecretRule {
  readonly name: string;
  readonly pattern: RegExp;
  /** A literal (exact case) without which the pattern cannot match. */
  readonly keyword?: string | undefined;
  /** Whether a match is a secret; without it every match is. */
  readonly accept?: ((match: string) => boolean) | undefined;
}

const rule = (name: string, pattern: RegExp, keyword?: string): SecretRule =>
  keyword === undefined ? { name, pattern } : { name, pattern, keyword };

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * `sk-` followed by hyphenated segments is a key when the segments look random: at least
 * 20 letters and digits with 3 of each, and mixed case, a UUID, or one run of 16 or more
 * letters and digits.
 * A pod or package name (`sk-payments-worker-7d9f8c6b5-x2x9z`) is lower case in short runs.
 */
export function isSegmentedKey(match: string): boolean {
  const body = match.slice(3);
  const alphanumeric = body.replace(/[^A-Za-z0-9]/g, '');
  const digits = alphanumeric.replace(/[^0-9]/g, '').length;
  const letters = alphanumeric.length - digits;
  if (alphanumeric.length < 20 || digits < 3 || letters < 3) return false;
  const mixedCase = /[a-z]/.test(body) && /[A-Z]/.test(body);
  const longRun = body
    .split(/[-_]/)
    .some((segment) => segment.length >= 16 && /[0-9]/.test(segment) && /[A-Za-z]/.test(segment));
  return mixedCase || longRun || uuid.test(body);
}

export const secretRules: readonly SecretRule[] = [
  // Model vendors. OpenAI (sk-proj-, sk-svcacct-, sk-admin-, legacy sk- with T3BlbkFJ),
  // Anthropic (sk-ant-api03-, sk-ant-admin01-), OpenRouter (sk-or-v1-), and the many
  // OpenAI-compatible vendors that mint `sk-` + one long alphanumeric run. A bare `sk-`
  // with short kebab segments (a pod or package name) is not a key.
  rule(
    'sk-key',
    /\bsk-(?:(?:proj|svcacct|admin|ant|or)-[A-Za-z0-9_-]{16,1024}|[A-Za-z0-9]{20,1024}[A-Za-z0-9_-]{0,1024})/g,
  ),
  // The same family with the vendor's word and the key in hyphenated segments (`sk-lf-`
  // and a UUID, `sk-…-…-…` of mixed case): caught when the segments look random.
  {
    name: 'sk-key-segmented',
    pattern: /\bsk-[A-Za-z0-9][A-Za-z0-9_-]{18,2048}/g,
    accept: isSegmentedKey,
  },
  rule('google-api-key', /\bAIza[\w-]{35,255}/g),
  // Exactly 34 characters: `hf_` also starts long C identifiers (`hf_servingcell…`).
  rule('huggingface', /\b(?:hf|api_org)_[A-Za-z0-9]{34}(?![A-Za-z0-9_])/g),
  rule('groq', /\bgsk_[A-Za-z0-9]{40,255}/g),
  rule('perplexity', /\bpplx-[A-Za-z0-9]{40,255}/g),
  rule('aws-bedrock', /\bABSK[A-Za-z0-9+/]{100,300}={0,2}/g),
  rule('aws-bedrock-short-lived', /\bbedrock-api-key-[A-Za-z0-9+/=%_-]{20,8192}/g),

  // Code hosts and CI.
  rule('github', /\b(?:gh[pousr]_[A-Za-z0-9_]{30,255}|ghs_[0-9]{1,20}_[A-Za-z0-9_.-]{20,4096})/g),
  rule('github-fine-grained', /\bgithub_pat_[A-Za-z0-9_]{30,255}/g),
  rule(
    'gitlab',
    /\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|soat|cbt|ffct)-[A-Za-z0-9_-]{20,300}(?:\.[A-Za-z0-9]{2,20}){0,2}/g,
  ),
  rule('gitlab-runner-registration', /\bGR1348941[\w-]{20,255}/g),
  rule('npm', /\bnpm_[A-Za-z0-9]{36,255}/g),
  rule('pypi', /\bpypi-AgE[A-Za-z0-9_-]{50,2000}/g),
  rule('rubygems', /\brubygems_[a-f0-9]{48}\b/g),
  rule('docker-hub', /\bdckr_pat_[A-Za-z0-9_-]{27,255}/g),

  // Cloud.
  rule('aws-access-key-id', /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g),
  rule('azure-ad-client-secret', /(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])/g, 'Q~'),
  rule('digitalocean', /\bdo[opr]_v1_[a-f0-9]{64}\b/g),
  rule('hashicorp-vault', /\bhv[sbr]\.[\w-]{90,300}/g),
  rule('terraform-cloud', /\b[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}/g, '.atlasv1.'),
  rule('doppler', /\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b/g),
  rule('pulumi', /\bpul-[a-f0-9]{40}\b/g),
  rule('databricks', /\bdapi[a-f0-9]{32}(?:-\d)?\b/g),
  rule('heroku', /\bHRKU-AA[\w-]{58}/g),
  rule('planetscale', /\bpscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}/g),
  rule('cloudflare', /\bcf(?:k|ut|at)_[A-Za-z0-9]{40}[0-9a-f]{8}\b/g),
  rule('vercel', /\bvc[picrk]_[A-Za-z0-9]{20,60}\b/g),
  rule('tailscale', /\btskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}/g),
  rule('cloudflare-origin-ca', /\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b/g),
  rule(
    '1password-secret-key',
    /\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b/g,
  ),
  rule('age', /\bAGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}\b/g),

  // Payments and commerce.
  rule('stripe', /\b[srp]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}/g),
  rule('stripe-webhook-secret', /\bwhsec_[A-Za-z0-9+/=]{20,256}/g),
  rule('square', /\b(?:sq0(?:atp|csp)-[\w-]{22,60}|EAAA[\w-]{60})/g),
  rule('shopify', /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,64}\b/g),

  // Chat and webhooks: the host and path prefix stay readable, the token does not.
  rule('slack-token', /\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,500}/g),
  rule(
    'slack-webhook',
    /\b(hooks\.slack\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9+/]{20,200}/g,
  ),
  rule(
    'discord-webhook',
    /\b(discord(?:app)?\.com\/api(?:\/v\d{1,2})?\/webhooks\/)\d{5,30}\/[\w-]{20,200}/g,
  ),
  rule('teams-webhook', /(\.webhook\.office\.com\/webhookb2\/)[\w@/-]{40,400}/g),
  rule('telegram-bot', /(?<![0-9])[0-9]{5,16}:A[\w-]{34}(?![\w-])/g, ':A'),

  // Messaging, e-mail, productivity and monitoring.
  rule('sendgrid', /\bSG\.[\w-]{16,64}\.[\w-]{16,128}/g),
  rule('twilio-api-key', /\bSK[0-9a-fA-F]{32}\b/g),
  rule('mailgun', /\bkey-[0-9a-f]{32}\b/g),
  rule('mailchimp', /\b[0-9a-f]{32}-us[0-9]{1,2}\b/g, '-us'),
  rule('brevo', /\bx(?:key|smtp)sib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/g),
  rule('linear', /\blin_api_[A-Za-z0-9_]{32,128}/g),
  rule('notion', /\b(?:ntn_[0-9]{11}[A-Za-z0-9]{32,40}|secret_[A-Za-z0-9]{43})\b/g),
  rule('postman', /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g),
  rule(
    'grafana',
    /\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,3}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})/g,
  ),
  rule('sentry', /\bsntry[us]_[A-Za-z0-9+/=_]{60,400}/g),
  rule('new-relic', /\bNR(?:AK|II|JS)-[A-Za-z0-9-]{19,40}/g),
  rule('figma', /\bfigd_[\w-]{40,200}/g),
  rule('atlassian', /\bATATT3[\w=-]{150,300}/g),
  rule('1password', /\bops_eyJ[A-Za-z0-9+/=]{100,4096}/g),

  // `curl -u user:password` in a failed command line: the user may be the key itself
  // (`-u "key:"`), so the whole credential goes. A colon is required: `git push -u origin`.
  rule(
    'curl-user',
    /(\s(?:-u|--user)(?:\s{1,4}|=))["']?[^\s"':[\]]{0,200}["']?:["']?[^\s"'[\]]{0,200}["']?/g,
  ),

  // JSON Web Tokens: header and payload are base64url JSON, so both start with eyJ; the
  // signature is optional so that a token cut short is still caught.
  rule('jwt', /\beyJ[\w-]{5,4096}\.eyJ[\w-]{5,8192}(?:\.[\w-]{0,4096})?/g),
];
