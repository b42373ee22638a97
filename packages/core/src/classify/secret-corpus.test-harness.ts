/**
 * The redaction corpus: credentials in the formats of gitleaks' `config/gitleaks.toml`
 * and `@secretlint/secretlint-rule-preset-recommend` (prefix, alphabet and length taken
 * from the named rule), each inside the kind of error text it turns up in; and
 * look-alikes a user needs to see intact.
 *
 * No full token is written in this file: every one is assembled at run time from its
 * prefix and a body from a seeded generator, so secret scanners and push protection have
 * nothing to flag, and every run sees the same tokens.
 */

export interface SecretSample {
  /** What the credential is. */
  readonly name: string;
  /** Where its format comes from. */
  readonly source: string;
  /** The text that carries it. */
  readonly text: string;
  /** The parts that must not survive redaction. */
  readonly secrets: readonly string[];
}

export interface LookAlike {
  readonly name: string;
  readonly text: string;
}

const alphabets = {
  alnum: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  base64url: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  base64: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  hex: '0123456789abcdef',
  upperHex: '0123456789ABCDEF',
  letters: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  lower: 'abcdefghijklmnopqrstuvwxyz0123456789',
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  awsId: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  digits: '0123456789',
  bech32: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L',
} as const;
type Alphabet = keyof typeof alphabets;

/** A deterministic generator of token bodies (mulberry32), seeded by a label. */
export function createBodies(label: string): (alphabet: Alphabet, length: number) => string {
  let seed = 2166136261;
  for (let index = 0; index < label.length; index += 1) {
    seed = Math.imul(seed ^ label.charCodeAt(index), 16777619) >>> 0;
  }
  const next = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, length) => {
    const characters = alphabets[alphabet];
    let out = '';
    for (let index = 0; index < length; index += 1) {
      out += characters.charAt(Math.floor(next() * characters.length));
    }
    return out;
  };
}

type Body = ReturnType<typeof createBodies>;

// One entry: name, source, and a function from the body generator to [text, secrets].
type Entry = readonly [string, string, (body: Body) => readonly [string, readonly string[]]];

/** A token built from a prefix and a body; the secret part is the whole token. */
const token = (text: (value: string) => string, value: string) => [text(value), [value]] as const;

const pemLines = (body: Body, length: number) =>
  (body('base64', length).match(/.{1,64}/g) ?? []).join('\n');

const entries: readonly Entry[] = [
  // Model vendors.
  [
    'OpenAI legacy user key',
    'gitleaks openai-api-key',
    (b) =>
      token(
        (k) => `401 Incorrect API key provided: ${k}.`,
        `sk-${b('alnum', 20)}T3Blb${'kFJ'}${b('alnum', 20)}`,
      ),
  ],
  [
    'OpenAI project key',
    'gitleaks openai-api-key, secretlint openai',
    (b) =>
      token(
        (k) => `OpenAI error (401) using ${k} for project acme`,
        `sk-${'proj'}-${b('base64url', 74)}T3Blb${'kFJ'}${b('base64url', 74)}`,
      ),
  ],
  [
    'OpenAI service-account key',
    'gitleaks openai-api-key',
    (b) =>
      token(
        (k) => `OPENAI_API_KEY=${k}`,
        `sk-${'svcacct'}-${b('base64url', 58)}T3Blb${'kFJ'}${b('base64url', 58)}`,
      ),
  ],
  [
    'OpenAI admin key',
    'gitleaks openai-api-key',
    (b) =>
      token(
        (k) => `{"error":{"message":"admin key ${k} lacks scope"}}`,
        `sk-${'admin'}-${b('base64url', 58)}T3Blb${'kFJ'}${b('base64url', 58)}`,
      ),
  ],
  [
    'Anthropic API key',
    'gitleaks anthropic-api-key, secretlint anthropic',
    (b) =>
      token((k) => `x-api-key header ${k} is invalid`, `sk-${'ant-api03'}-${b('base64url', 93)}AA`),
  ],
  [
    'Anthropic admin key',
    'gitleaks anthropic-admin-api-key',
    (b) => token((k) => `admin key '${k}' revoked`, `sk-${'ant-admin01'}-${b('base64url', 93)}AA`),
  ],
  [
    'sk- key: vendor word and a UUID',
    'Langfuse secret key format (sk-lf- and a UUID)',
    (b) =>
      token(
        (k) => `401 Unauthorized: invalid credentials ${k}`,
        `sk-${'lf'}-${b('hex', 8)}-${b('hex', 4)}-4${b('hex', 3)}-a${b('hex', 3)}-${b('hex', 12)}`,
      ),
  ],
  [
    'sk- key: vendor word and one long run',
    'sk- family, vendor-prefixed',
    (b) => token((k) => `LANGFUSE_SECRET_KEY=${k} was rejected`, `sk-${'lf'}-${b('alnum', 32)}`),
  ],
  [
    'sk- key: mixed-case hyphenated segments',
    'sk- family, self-hosted gateways',
    (b) =>
      token(
        (k) => `{"error":"invalid api key ${k}"}`,
        `sk-${b('alnum', 8)}Q7-${b('alnum', 8)}x2-${b('alnum', 8)}K9-${b('alnum', 8)}`,
      ),
  ],
  [
    'sk-proj- key with hyphens and underscores in the body',
    'gitleaks openai-api-key (loosened: no T3BlbkFJ marker)',
    (b) =>
      token(
        (k) => `Incorrect API key provided: ${k}.`,
        `sk-${'proj'}-${b('alnum', 24)}-${b('alnum', 20)}_${b('alnum', 30)}`,
      ),
  ],
  [
    'sk-ant-api03- key, hyphens in the body',
    'gitleaks anthropic-api-key',
    (b) =>
      token(
        (k) => `authentication_error: invalid x-api-key ${k}`,
        `sk-${'ant-api03'}-${b('alnum', 30)}-${b('alnum', 30)}-${b('alnum', 33)}AA`,
      ),
  ],
  [
    'OpenRouter / OpenAI-compatible key',
    'secretlint openai (sk- family)',
    (b) => token((k) => `provider rejected ${k}`, `sk-${'or-v1'}-${b('hex', 64)}`),
  ],
  [
    'Google AI (Gemini) / GCP API key',
    'gitleaks gcp-api-key',
    (b) =>
      token(
        (k) =>
          `GET https://generativelanguage.googleapis.com/v1beta/models?key=${k} 400 API key not valid`,
        `AI${'za'}Sy${b('base64url', 33)}`,
      ),
  ],
  [
    'Hugging Face access token',
    'gitleaks huggingface-access-token, secretlint huggingface',
    (b) =>
      token(
        (k) => `401 Client Error for url https://huggingface.co/api/whoami-v2 (token ${k})`,
        `h${'f_'}${b('letters', 34)}`,
      ),
  ],
  [
    'Hugging Face organization token',
    'gitleaks huggingface-organization-api-token',
    (b) => token((k) => `HF_TOKEN=${k}`, `api${'_org_'}${b('letters', 34)}`),
  ],
  [
    'Groq API key',
    'secretlint groq',
    (b) =>
      token((k) => `groq.AuthenticationError: Invalid API Key ${k}`, `gs${'k_'}${b('alnum', 52)}`),
  ],
  [
    'Perplexity API key',
    'gitleaks perplexity-api-key',
    (b) => token((k) => `Authorization failed for ${k}`, `ppl${'x-'}${b('alnum', 48)}`),
  ],
  [
    'Cohere API key (by name)',
    'gitleaks cohere-api-token',
    (b) => token((k) => `CO_API_KEY=${k}`, b('alnum', 40)),
  ],

  // Code hosts and CI.
  [
    'GitHub personal access token (classic)',
    'gitleaks github-pat, secretlint github',
    (b) =>
      token(
        (k) => `remote: Invalid username or token ${k}. Password authentication is not supported.`,
        `gh${'p_'}${b('alnum', 36)}`,
      ),
  ],
  [
    'GitHub OAuth token',
    'gitleaks github-oauth',
    (b) => token((k) => `Bad credentials for ${k}`, `gh${'o_'}${b('alnum', 36)}`),
  ],
  [
    'GitHub app user token',
    'gitleaks github-app-token',
    (b) => token((k) => `token=${k}&scope=repo`, `gh${'u_'}${b('alnum', 36)}`),
  ],
  [
    'GitHub app installation token',
    'gitleaks github-app-token',
    (b) => token((k) => `x-access-token ${k} expired`, `gh${'s_'}${b('alnum', 36)}`),
  ],
  [
    'GitHub refresh token',
    'gitleaks github-refresh-token',
    (b) => token((k) => `refresh failed: ${k}`, `gh${'r_'}${b('alnum', 36)}`),
  ],
  [
    'GitHub fine-grained PAT',
    'gitleaks github-fine-grained-pat, secretlint github',
    (b) =>
      token(
        (k) => `403 Resource not accessible by personal access token ${k}`,
        `github${'_pat_'}11${b('upper', 20)}_${b('alnum', 59)}`,
      ),
  ],
  [
    'GitLab personal access token',
    'gitleaks gitlab-pat, secretlint gitlab',
    (b) => token((k) => `401 Unauthorized: PRIVATE-TOKEN ${k}`, `glp${'at-'}${b('base64url', 20)}`),
  ],
  [
    'GitLab routable personal access token',
    'gitleaks gitlab-pat-routable',
    (b) =>
      token((k) => `token ${k} rejected`, `glp${'at-'}${b('base64url', 36)}.01.${b('lower', 9)}`),
  ],
  [
    'GitLab runner token',
    'gitleaks gitlab-runner-authentication-token',
    (b) => token((k) => `runner ${k} is not registered`, `glr${'t-'}${b('base64url', 20)}`),
  ],
  [
    'GitLab deploy token',
    'gitleaks gitlab-deploy-token',
    (b) => token((k) => `deploy token ${k} expired`, `gld${'t-'}${b('base64url', 20)}`),
  ],
  [
    'GitLab pipeline trigger token',
    'gitleaks gitlab-ptt',
    (b) =>
      token(
        (k) => `POST /api/v4/projects/7/trigger/pipeline token=${k}`,
        `glpt${'t-'}${b('hex', 40)}`,
      ),
  ],
  [
    'npm access token',
    'gitleaks npm-access-token, secretlint npm',
    (b) => token((k) => `//registry.npmjs.org/:_authToken=${k}`, `np${'m_'}${b('alnum', 36)}`),
  ],
  [
    'PyPI upload token',
    'gitleaks pypi-upload-token',
    (b) =>
      token(
        (k) => `HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/ using ${k}`,
        `pypi-AgEIcHlwaS5vcm${'c'}${b('base64url', 70)}`,
      ),
  ],
  [
    'RubyGems API key',
    'gitleaks rubygems-api-token',
    (b) => token((k) => `GEM_HOST_API_KEY: ${k}`, `rubygems${'_'}${b('hex', 48)}`),
  ],
  [
    'Docker Hub personal access token',
    'secretlint docker',
    (b) => token((k) => `docker login -u ci -p ${k} failed`, `dckr${'_pat_'}${b('base64url', 27)}`),
  ],

  // Cloud.
  [
    'AWS access key id',
    'gitleaks aws-access-token, secretlint aws',
    (b) =>
      token(
        (k) => `The AWS Access Key Id ${k} you provided does not exist in our records.`,
        `AK${'IA'}${b('awsId', 16)}`,
      ),
  ],
  [
    'AWS temporary access key id',
    'gitleaks aws-access-token',
    (b) => token((k) => `InvalidClientTokenId: ${k}`, `AS${'IA'}${b('awsId', 16)}`),
  ],
  [
    'AWS secret access key (credentials file)',
    'secretlint aws (AWSSecretAccessKey)',
    (b) => token((k) => `aws_secret_access_key = ${k}`, b('base64', 40)),
  ],
  [
    'AWS secret access key (STS JSON)',
    'secretlint aws (AWSSecretAccessKey)',
    (b) => {
      const key = b('base64', 40);
      const session = b('base64', 300);
      return [
        `{"Credentials":{"AccessKeyId":"AS${'IA'}${b('awsId', 16)}","SecretAccessKey":"${key}","SessionToken":"${session}"}}`,
        [key, session],
      ];
    },
  ],
  [
    'AWS presigned URL',
    'gitleaks aws-access-token; signature by name',
    (b) => {
      const id = `AK${'IA'}${b('awsId', 16)}`;
      const signature = b('hex', 64);
      return [
        `403 for https://acme.s3.amazonaws.com/r.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${id}%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=${signature}`,
        [id, signature],
      ];
    },
  ],
  [
    'GCP service-account key file',
    'secretlint gcp (private_key JSON)',
    (b) => {
      const lines = (b('base64', 1624).match(/.{1,64}/g) ?? []) as string[];
      const key = `-----BEGIN PRIVATE KEY-----\\nMIIEv${lines.join('\\n')}\\n-----END PRIVATE KEY-----\\n`;
      return [
        `invalid credentials file: {"type":"service_account","project_id":"acme-prod","private_key_id":"${b('hex', 40)}","private_key":"${key}","client_email":"ci@acme-prod.iam.gserviceaccount.com"}`,
        lines,
      ];
    },
  ],
  [
    'Azure AD client secret',
    'gitleaks azure-ad-client-secret',
    (b) =>
      token(
        (k) => `AADSTS7000215: Invalid client secret provided (${k}).`,
        `${b('alnum', 3)}8Q~${b('base64url', 34).replace(/-/g, '.')}`,
      ),
  ],
  [
    'Azure client secret (by name)',
    'secretlint azure (AzureClientSecret)',
    (b) => token((k) => `AZURE_CLIENT_SECRET=${k}`, b('lower', 40)),
  ],
  [
    'Azure storage connection string',
    'Azure storage AccountKey (by name)',
    (b) =>
      token(
        (k) =>
          `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${k};EndpointSuffix=core.windows.net`,
        `${b('base64', 86)}==`,
      ),
  ],
  [
    'Azure SAS URL',
    'Azure shared access signature (sig by name)',
    (b) =>
      token(
        (k) =>
          `AuthenticationFailed for https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2026-12-01T00:00:00Z&sig=${k}`,
        `${b('alnum', 43)}%3D`,
      ),
  ],
  [
    'DigitalOcean personal access token',
    'gitleaks digitalocean-pat',
    (b) => token((k) => `doctl auth: ${k} unauthorized`, `dop${'_v1_'}${b('hex', 64)}`),
  ],
  [
    'HashiCorp Vault service token',
    'gitleaks vault-service-token, secretlint hashicorp-vault',
    (b) => token((k) => `X-Vault-Token ${k}: permission denied`, `hv${'s.'}${b('base64url', 95)}`),
  ],
  [
    'Terraform Cloud token',
    'gitleaks hashicorp-tf-api-token',
    (b) =>
      token(
        (k) => `credentials "app.terraform.io" { token = "${k}" }`,
        `${b('alnum', 14)}.atlas${'v1'}.${b('base64url', 67)}`,
      ),
  ],
  [
    'Doppler token',
    'gitleaks doppler-api-token',
    (b) => token((k) => `DOPPLER_TOKEN ${k} invalid`, `dp.${'pt'}.${b('alnum', 43)}`),
  ],
  [
    'Pulumi access token',
    'gitleaks pulumi-api-token',
    (b) => token((k) => `PULUMI_ACCESS_TOKEN ${k}`, `pu${'l-'}${b('hex', 40)}`),
  ],
  [
    'Databricks token',
    'gitleaks databricks-api-token, secretlint databricks',
    (b) => token((k) => `Invalid access token ${k}`, `dap${'i'}${b('hex', 32)}`),
  ],
  [
    'Heroku API key v2',
    'gitleaks heroku-api-key-v2',
    (b) => token((k) => `HEROKU_API_KEY ${k} expired`, `HRKU${'-AA'}${b('base64url', 58)}`),
  ],
  [
    'PlanetScale password',
    'gitleaks planetscale-password',
    (b) => token((k) => `mysql: access denied using ${k}`, `pscale${'_pw_'}${b('base64url', 43)}`),
  ],
  [
    'Cloudflare user token',
    'secretlint cloudflare',
    (b) =>
      token(
        (k) => `CLOUDFLARE_API_TOKEN ${k} invalid`,
        `cf${'ut_'}${b('alnum', 40)}${b('hex', 8)}`,
      ),
  ],
  [
    'Vercel token',
    'secretlint vercel',
    (b) =>
      token((k) => `Error: The specified token is not valid (${k})`, `vc${'p_'}${b('alnum', 24)}`),
  ],
  [
    'Tailscale auth key',
    'secretlint tailscale',
    (b) =>
      token(
        (k) => `tailscale up --authkey ${k}: invalid key`,
        `tskey${'-auth'}-${b('alnum', 17)}-${b('alnum', 33)}`,
      ),
  ],
  [
    'Cloudflare origin CA key',
    'gitleaks cloudflare-origin-ca-key',
    (b) =>
      token((k) => `origin CA key ${k} rejected`, `v1.${'0-'}${b('hex', 24)}-${b('hex', 146)}`),
  ],
  [
    '1Password account secret key',
    'gitleaks 1password-secret-key',
    (b) =>
      token(
        (k) => `op signin: secret key ${k} does not match`,
        `A${'3-'}${b('upper', 6)}-${b('upper', 11)}-${b('upper', 5)}-${b('upper', 5)}-${b('upper', 5)}`,
      ),
  ],
  [
    'Amazon Bedrock short-lived API key',
    'gitleaks aws-amazon-bedrock-api-key-short-lived',
    (b) =>
      token(
        (k) => `AWS_BEARER_TOKEN_BEDROCK ${k} expired`,
        `bedrock-api${'-key-'}YmVkcm9jay5hbWF6b25hd3MuY29t${b('base64', 120)}`,
      ),
  ],
  [
    'Amazon Bedrock long-lived API key',
    'gitleaks aws-amazon-bedrock-api-key-long-lived',
    (b) => token((k) => `403 with ${k}`, `AB${'SK'}QmVkcm9ja0FQSUtleS1${b('base64', 110)}`),
  ],
  [
    'age secret key',
    'gitleaks age-secret-key',
    (b) =>
      token((k) => `sops: cannot decrypt with ${k}`, `AGE-SECRET${'-KEY-1'}${b('bech32', 58)}`),
  ],

  // Payments and commerce.
  [
    'Stripe live secret key',
    'gitleaks stripe-access-token, secretlint stripe',
    (b) => token((k) => `Invalid API Key provided: ${k}`, `sk${'_live_'}${b('alnum', 99)}`),
  ],
  [
    'Stripe restricted key',
    'gitleaks stripe-access-token, secretlint stripe',
    (b) =>
      token(
        (k) => `The provided key '${k}' does not have the required permissions`,
        `rk${'_live_'}${b('alnum', 99)}`,
      ),
  ],
  [
    'Stripe test secret key',
    'gitleaks stripe-access-token',
    (b) => token((k) => `STRIPE_SECRET_KEY=${k}`, `sk${'_test_'}${b('alnum', 24)}`),
  ],
  [
    'Stripe webhook signing secret',
    'Stripe webhook endpoint secret (whsec_)',
    (b) =>
      token(
        (k) => `No signatures found matching the expected signature for payload (secret ${k})`,
        `wh${'sec_'}${b('alnum', 32)}`,
      ),
  ],
  [
    'Square access token',
    'gitleaks square-access-token',
    (b) => token((k) => `UNAUTHORIZED: ${k}`, `sq0${'atp-'}${b('base64url', 22)}`),
  ],
  [
    'Shopify admin access token',
    'gitleaks shopify-access-token, secretlint shopify',
    (b) =>
      token(
        (k) => `[API] Invalid API key or access token (unrecognized login or wrong password) ${k}`,
        `shp${'at_'}${b('hex', 32)}`,
      ),
  ],
  [
    'Shopify shared secret',
    'gitleaks shopify-shared-secret',
    (b) => token((k) => `HMAC validation failed with ${k}`, `shp${'ss_'}${b('hex', 32)}`),
  ],

  // Chat and webhooks.
  [
    'Slack bot token',
    'gitleaks slack-bot-token, secretlint slack',
    (b) =>
      token(
        (k) => `An API error occurred: invalid_auth (${k})`,
        `xox${'b-'}${b('digits', 12)}-${b('digits', 13)}-${b('alnum', 24)}`,
      ),
  ],
  [
    'Slack user token',
    'gitleaks slack-user-token, secretlint slack',
    (b) =>
      token(
        (k) => `token_revoked: ${k}`,
        `xox${'p-'}${b('digits', 12)}-${b('digits', 12)}-${b('digits', 13)}-${b('hex', 32)}`,
      ),
  ],
  [
    'Slack app-level token',
    'gitleaks slack-app-token',
    (b) =>
      token(
        (k) => `socket mode: ${k} not allowed`,
        `xap${'p-'}1-A${b('upper', 10)}-${b('digits', 13)}-${b('hex', 64)}`,
      ),
  ],
  [
    'Slack incoming webhook',
    'gitleaks slack-webhook-url, secretlint slack',
    (b) =>
      token(
        (k) => `POST https://hooks.slack.com/services/${k} returned 404 no_service`,
        `T${b('upper', 8)}/B${b('upper', 10)}/${b('alnum', 24)}`,
      ),
  ],
  [
    'Discord webhook',
    'discord.com/api/webhooks/{id}/{token} (discord.js WebhookRegex)',
    (b) =>
      token(
        (k) => `401 for https://discord.com/api/webhooks/${k}`,
        `${b('digits', 19)}/${b('base64url', 68)}`,
      ),
  ],
  [
    'Microsoft Teams webhook',
    'gitleaks microsoft-teams-webhook',
    (b) =>
      token(
        (k) => `Teams webhook https://acme.webhook.office.com/webhookb2/${k} failed`,
        `${b('hex', 8)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 12)}@${b('hex', 8)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 12)}/IncomingWebhook/${b('hex', 32)}/${b('hex', 8)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 4)}-${b('hex', 12)}`,
      ),
  ],
  [
    'Telegram bot token',
    'gitleaks telegram-bot-api-token',
    (b) =>
      token(
        (k) => `404 for https://api.telegram.org/bot${k}/sendMessage`,
        `${b('digits', 10)}:AA${b('base64url', 33)}`,
      ),
  ],

  // Messaging, e-mail, productivity, monitoring.
  [
    'SendGrid API key',
    'gitleaks sendgrid-api-token, secretlint sendgrid',
    (b) =>
      token(
        (k) => `HTTP Error 401: Unauthorized (${k})`,
        `S${'G.'}${b('base64url', 22)}.${b('base64url', 43)}`,
      ),
  ],
  [
    'Twilio API key',
    'gitleaks twilio-api-key',
    (b) => token((k) => `Twilio 20003 Authenticate: ${k}`, `S${'K'}${b('hex', 32)}`),
  ],
  [
    'Twilio auth token in a URL',
    'secretlint basicauth',
    (b) => {
      const auth = b('hex', 32);
      return [
        `POST https://AC${b('hex', 32)}:${auth}@api.twilio.com/2010-04-01/Accounts failed`,
        [auth],
      ];
    },
  ],
  [
    'Mailgun private API key',
    'gitleaks mailgun-private-api-token',
    (b) => token((k) => `mailgun: Forbidden (api:${k})`, `ke${'y-'}${b('hex', 32)}`),
  ],
  [
    'Mailchimp API key',
    'gitleaks mailchimp-api-key',
    (b) => token((k) => `mailchimp API Key Invalid: ${k}`, `${b('hex', 32)}-u${'s21'}`),
  ],
  [
    'Brevo (Sendinblue) API key',
    'gitleaks sendinblue-api-token',
    (b) => token((k) => `Key not found: ${k}`, `xkey${'sib-'}${b('hex', 64)}-${b('alnum', 16)}`),
  ],
  [
    'Linear API key',
    'gitleaks linear-api-key, secretlint linear',
    (b) =>
      token(
        (k) => `Authentication required, not authenticated (${k})`,
        `lin${'_api_'}${b('alnum', 40)}`,
      ),
  ],
  [
    'Notion integration token',
    'gitleaks notion-api-token, secretlint notion',
    (b) =>
      token((k) => `API token is invalid: ${k}`, `nt${'n_'}${b('digits', 11)}${b('alnum', 35)}`),
  ],
  [
    'Postman API key',
    'gitleaks postman-api-token',
    (b) => token((k) => `AuthenticationError ${k}`, `PM${'AK-'}${b('hex', 24)}-${b('hex', 34)}`),
  ],
  [
    'Grafana service account token',
    'gitleaks grafana-service-account-token, secretlint grafana',
    (b) => token((k) => `Unauthorized: ${k}`, `gls${'a_'}${b('alnum', 32)}_${b('hex', 8)}`),
  ],
  [
    'Sentry user token',
    'gitleaks sentry-user-token',
    (b) => token((k) => `sentry-cli: ${k} invalid`, `sntr${'yu_'}${b('hex', 64)}`),
  ],
  [
    'New Relic user API key',
    'gitleaks new-relic-user-api-key',
    (b) => token((k) => `NEW_RELIC_API_KEY ${k}`, `NR${'AK-'}${b('upper', 27)}`),
  ],
  [
    'Figma token',
    'secretlint figma',
    (b) => token((k) => `403 Invalid token ${k}`, `fig${'d_'}${b('base64url', 40)}`),
  ],
  [
    'Atlassian API token',
    'gitleaks atlassian-api-token',
    (b) => token((k) => `JIRA 401 with ${k}`, `ATA${'TT3'}${b('base64url', 186)}`),
  ],
  [
    '1Password service account token',
    'gitleaks 1password-service-account-token, secretlint 1password',
    (b) => token((k) => `op: invalid token ${k}`, `ops${'_eyJ'}${b('base64', 300)}`),
  ],

  // JWTs and HTTP credentials.
  [
    'JSON Web Token',
    'gitleaks jwt',
    (b) =>
      token(
        (k) => `jwt expired: ${k}`,
        `ey${'J'}hbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.ey${'J'}${b('base64url', 120)}.${b('base64url', 342)}`,
      ),
  ],
  [
    'Authorization: Bearer (opaque)',
    'gitleaks curl-auth-header',
    (b) =>
      token(
        (k) => `curl -H "Authorization: Bearer ${k}" https://api.acme.test returned 401`,
        `${b('base64url', 40)}.${b('alnum', 12)}`,
      ),
  ],
  [
    'Authorization: Basic',
    'gitleaks curl-auth-header',
    (b) =>
      token(
        (k) => `request headers: {"authorization":"Basic ${k}","accept":"*/*"}`,
        Buffer.from(`ci-bot:${b('alnum', 18)}`).toString('base64'),
      ),
  ],
  [
    'Proxy-Authorization header',
    'gitleaks curl-auth-header',
    (b) =>
      token(
        (k) => `407 Proxy Authentication Required; sent Proxy-Authorization: Basic ${k}`,
        Buffer.from(`proxy:${b('alnum', 14)}`).toString('base64'),
      ),
  ],
  [
    'x-api-key header',
    'gitleaks curl-auth-header (X-Api-Key)',
    (b) =>
      token((k) => `headers: x-api-key: ${k}, anthropic-version: 2023-06-01`, b('base64url', 48)),
  ],
  [
    'Cookie header',
    'session credentials (Cookie header)',
    (b) => token((k) => `GET /admin 302; Cookie: session=${k}; theme=dark`, b('base64url', 43)),
  ],
  [
    'curl -u in a failed command',
    'gitleaks curl-auth-user',
    (b) =>
      token(
        (k) => `command failed: curl -sf -u ${k} https://es.internal:9200/_cat/indices`,
        `elastic:${b('alnum', 16)}`,
      ),
  ],
  [
    'password in a query string',
    'secretlint basicauth (password by name)',
    (b) => token((k) => `GET /login?user=bob&password=${k}&next=/ 500`, b('alnum', 14)),
  ],
  [
    'client_secret in a JSON body',
    'gitleaks generic-api-key (secret by name)',
    (b) =>
      token(
        (k) => `{"error":"invalid_client","request":{"client_id":"acme","client_secret":"${k}"}}`,
        b('base64url', 40),
      ),
  ],
  [
    'escaped JSON inside JSON',
    'gitleaks generic-api-key (password by name)',
    (b) =>
      token((k) => `{"body":"{\\"user\\":\\"svc\\",\\"password\\":\\"${k}\\"}"}`, b('alnum', 20)),
  ],

  // Credentials in URLs and connection strings.
  [
    'PostgreSQL URL',
    'secretlint database-connection-string',
    (b) =>
      token(
        (k) => `connect ECONNREFUSED postgres://app_user:${k}@db.internal:5432/app`,
        b('alnum', 16),
      ),
  ],
  [
    'MySQL URL',
    'secretlint database-connection-string',
    (b) =>
      token((k) => `ER_ACCESS_DENIED_ERROR mysql://root:${k}@10.0.0.5:3306/shop`, b('alnum', 16)),
  ],
  [
    'Redis URL without a user',
    'secretlint database-connection-string (URI form)',
    (b) =>
      token((k) => `ReplyError: WRONGPASS redis://:${k}@cache.internal:6379/0`, b('alnum', 24)),
  ],
  [
    'MongoDB SRV URL',
    'secretlint database-connection-string',
    (b) =>
      token(
        (k) =>
          `MongoServerError: bad auth : mongodb+srv://svc:${k}@cluster0.ab1cd.mongodb.net/app?retryWrites=true`,
        b('alnum', 20),
      ),
  ],
  [
    'password with an unencoded @',
    'secretlint database-connection-string',
    (b) =>
      token(
        (k) => `amqp://guest:${k}@rabbit.internal:5672/ refused`,
        `${b('alnum', 6)}@${b('alnum', 8)}`,
      ),
  ],
  [
    'git credential URL',
    'secretlint basicauth',
    (b) =>
      token(
        (k) => `fatal: unable to access 'https://ci:${k}@github.com/acme/app.git/': 403`,
        `gh${'p_'}${b('alnum', 36)}`,
      ),
  ],
  [
    'ADO.NET connection string',
    'gitleaks generic-api-key (Password by name)',
    (b) =>
      token(
        (k) => `Login failed: Server=tcp:sql.acme.test,1433;User ID=sa;Password=${k};Encrypt=true`,
        b('alnum', 18),
      ),
  ],

  // Private keys.
  [
    'RSA private key',
    'gitleaks private-key, secretlint privatekey',
    (b) => {
      const body = `MIIEow${pemLines(b, 1600)}`;
      return [
        `could not load key:\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n`,
        body.split('\n'),
      ];
    },
  ],
  [
    'EC private key',
    'gitleaks private-key, secretlint privatekey',
    (b) => {
      const body = `MHcC${pemLines(b, 160)}`;
      return [
        `-----BEGIN EC PRIVATE KEY-----\n${body}\n-----END EC PRIVATE KEY-----`,
        body.split('\n'),
      ];
    },
  ],
  [
    'OpenSSH private key',
    'gitleaks private-key, secretlint privatekey',
    (b) => {
      const body = `b3BlbnNzaC1rZXktdjEAAAAA${pemLines(b, 360)}`;
      return [
        `Load key "id_ed25519": invalid format -----BEGIN OPENSSH PRIVATE KEY-----\n${body}\n-----END OPENSSH PRIVATE KEY-----`,
        body.split('\n'),
      ];
    },
  ],
  [
    'PKCS#8 private key cut short',
    'gitleaks private-key',
    (b) => {
      const body = `MIIEvQ${pemLines(b, 900)}`;
      return [`key=-----BEGIN PRIVATE KEY-----\n${body}`, body.split('\n')];
    },
  ],
  [
    'encrypted private key',
    'gitleaks private-key, secretlint privatekey',
    (b) => {
      const body = `MIIFHz${pemLines(b, 1200)}`;
      return [
        `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${body}\n-----END ENCRYPTED PRIVATE KEY-----`,
        body.split('\n'),
      ];
    },
  ],
  [
    'PGP private key block',
    'gitleaks private-key (BLOCK), secretlint privatekey',
    (b) => {
      const body = `lQOYBF${pemLines(b, 900)}\n=${b('base64', 4)}`;
      return [
        `gpg: import failed -----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n${body}\n-----END PGP PRIVATE KEY BLOCK-----`,
        body.split('\n'),
      ];
    },
  ],
];

/** Every secret sample, built for this run. */
export function secretSamples(): SecretSample[] {
  return entries.map(([name, source, build]) => {
    const [text, secrets] = build(createBodies(name));
    return { name, source, text, secrets };
  });
}

// Text a user needs to see as it is: ids, digests and names that look like tokens.
export function lookAlikes(): LookAlike[] {
  const b = createBodies('look-alikes');
  const uuid = () =>
    `${b('hex', 8)}-${b('hex', 4)}-4${b('hex', 3)}-a${b('hex', 3)}-${b('hex', 12)}`;
  const list: ReadonlyArray<readonly [string, string]> = [
    ['commit SHA', `fatal: commit ${b('hex', 40)} is not an ancestor of main`],
    ['short commit SHA', `HEAD is now at ${b('hex', 7)} fix the retry budget`],
    ['UUID request id', `request ${uuid()} failed`],
    ['Stripe payment intent id', `No such payment_intent: 'pi_3${b('alnum', 23)}'`],
    ['Stripe charge id', `Charge ch_3${b('alnum', 23)} has already been refunded.`],
    ['Stripe customer id', `No such customer: 'cus_${b('alnum', 14)}'`],
    [
      'Stripe refund, invoice and payment method ids',
      `re_3${b('alnum', 23)} for in_1${b('alnum', 23)} with pm_1${b('alnum', 23)}`,
    ],
    [
      'Stripe request id',
      `Request req_${b('alnum', 14)}: No such price: 'price_1${b('alnum', 23)}'`,
    ],
    ['Stripe event id', `Webhook event evt_1${b('alnum', 23)} could not be delivered`],
    ['OpenAI tool call id', `No tool output found for function call call_${b('alnum', 24)}.`],
    ['OpenAI completion id', `completion chatcmpl-${b('alnum', 29)} finished with length`],
    ['OpenAI response id', `Previous response with id 'resp_${b('hex', 48)}' not found.`],
    [
      'OpenAI function call item id',
      `Item 'fc_${b('hex', 48)}' of type 'function_call' was provided without its required 'reasoning' item`,
    ],
    [
      'OpenAI organization and project ids',
      `Rate limit reached for gpt-4o in organization org-${b('alnum', 24)} (project proj_${b('alnum', 24)}) on tokens per min (TPM): Limit 30000`,
    ],
    [
      'OpenAI file, thread and run ids',
      `file-${b('alnum', 22)} is not attached to thread_${b('alnum', 24)} (run_${b('alnum', 24)})`,
    ],
    ['Anthropic message id', `message msg_01${b('alnum', 22)} stopped: max_tokens`],
    [
      'Anthropic tool use id',
      `tool_use ids were found without tool_result blocks immediately after: toolu_01${b('alnum', 22)}`,
    ],
    [
      'model names',
      'The model gpt-4o-2024-08-06 does not exist; try claude-3-5-sonnet-20241022 or o3-mini',
    ],
    ['sha256 digest', `digest sha256:${b('hex', 64)} does not match`],
    ['container image by digest', `pull ghcr.io/acme/api@sha256:${b('hex', 64)}: manifest unknown`],
    ['npm integrity hash', `EINTEGRITY: sha512-${b('base64', 86)}== integrity checksum failed`],
    ['md5 checksum', `Checksum mismatch: expected ${b('hex', 32)}`],
    [
      'AWS ARNs',
      'User: arn:aws:sts::123456789012:assumed-role/deploy/ci-session is not authorized to perform: s3:GetObject on resource: arn:aws:s3:::acme-prod/reports/q3.csv',
    ],
    ['AWS request ids', `RequestId: ${b('upperHex', 16)}, HostId: ${b('base64', 76)}`],
    ['AWS security token error', 'The security token included in the request is invalid.'],
    [
      'Twilio account SID',
      `The requested resource /2010-04-01/Accounts/AC${b('hex', 32)}/Messages.json was not found`,
    ],
    [
      'e-mail addresses',
      'Invitation for jane.doe+ci@example.com failed: user ops@acme.io already exists',
    ],
    [
      'ISO timestamps',
      'token expired at 2026-11-30T12:34:56.789Z; retry after 2026-11-30T12:35:00+01:00',
    ],
    ['request id header', `x-request-id: req_${b('hex', 32)}`],
    ['semver', 'Package @recourse/core@1.2.3-beta.4+build.5 requires node >=22.13 <25'],
    [
      'base64 of ordinary text',
      `payload ${Buffer.from('Hello, world! This is a perfectly ordinary sentence.').toString('base64')} decoded`,
    ],
    [
      'base64 JSON cursor',
      `invalid cursor ${Buffer.from('{"page":2,"size":50}').toString('base64url')}`,
    ],
    ['file paths', "ENOENT: no such file or directory, open '/home/ci/.ssh/id_ed25519.pub'"],
    ['Windows path', 'C:\\Users\\bob\\AppData\\Local\\Temp\\sk-notes.txt is locked'],
    [
      'URL without credentials',
      'GET https://api.example.com:8443/v1/orders?page=2&limit=50&email=a@b.test returned 404',
    ],
    [
      'URL with a user and a port',
      'git clone ssh://git@github.com:22/acme/app.git: Permission denied (publickey)',
    ],
    ['connection URL without a password', 'connect ECONNREFUSED postgres://db.internal:5432/app'],
    [
      'Kubernetes pod names',
      'pod sk-payments-worker-7d9f8c6b5-x2x9z OOMKilled; api-7f9c8d6b5-kx2lp Pending',
    ],
    [
      'AWS Secrets Manager ARN',
      'AccessDeniedException: not authorized to perform secretsmanager:GetSecretValue on resource: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-password-AbCdEf',
    ],
    [
      'Secrets Manager ARN with an ECS JSON key',
      'ResourceInitializationError: unable to pull secrets: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/api-token-Xy12Zw:password:: not found',
    ],
    [
      'Secrets Manager ARN inside JSON',
      '{"ARN":"arn:aws:secretsmanager:us-east-1:123456789012:secret:stripe/secret-key-a1B2c3","Name":"stripe/secret-key"}',
    ],
    [
      'a secret named by its id',
      "ResourceNotFoundException: can't find the specified secret. SecretId: prod/db-password",
    ],
    [
      'GCP Secret Manager name',
      'NOT_FOUND: projects/acme/secrets/db-password/versions/3 is disabled',
    ],
    [
      'Azure Key Vault secret URL',
      `SecretNotFound: https://acme-kv.vault.azure.net/secrets/db-password/${b('hex', 32)} was not found`,
    ],
    ['Kubernetes secret name', 'Error from server (NotFound): secrets "db-password" not found'],
    [
      'sk- deployment names',
      'deployment sk-payments-reconciliation-worker-v2-2026-11-30 rolled out; sk-learn-1.5.2 installed',
    ],
    ['token counts', '{"usage":{"prompt_tokens":12,"completion_tokens":7},"max_tokens":4096}'],
    [
      'names of secret fields',
      '{"password_reset_required":true,"secret_name":"prod/db","token_type":"bearer"}',
    ],
    [
      'missing parameter names',
      'Missing required parameter: \'api_key\'. The secret "db-credentials" was not found',
    ],
    [
      'scheme words in prose',
      'Basic authentication is not supported; Bearer tokens expire after one hour',
    ],
    ['authorization in prose', 'Authorization failed for user bob: the token has expired'],
    ['hosts and ports', 'connect ETIMEDOUT 10.0.3.17:6379; [::1]:5432 refused'],
    ['GitHub links', 'see https://github.com/acme/app/pull/42#issuecomment-1234567890'],
    ['Slack ids', 'channel_not_found: C024BE91L (user U012AB3CD, team T0123ABCD)'],
    [
      'GCP resource names',
      'projects/acme-prod-123/locations/us-central1/functions/refund-9 not found',
    ],
    [
      'kebab-case errors',
      'task-scheduler-worker-pool-exhausted-for-queue risk-assessment-for-the-quarterly-review',
    ],
    ['JSON parse error', "Expected property name or '}' in JSON at position 1 (line 1 column 2)"],
    [
      'hex ids',
      'Invalid order id 0x1f2e3d4c5b6a7988 at block 0x00000000000000000000000000000000000000000000000000000000deadbeef',
    ],
  ];
  return list.map(([name, text]) => ({ name, text }));
}

/**
 * Whether `output` still holds any secret of `sample`: the secret itself or, for long
 * secrets, any 10-character window of it (half a key is a leak too). A window that is
 * also in `surrounding` (text the sample was embedded in, which may hold a prefix such as
 * `github_pat_` by chance) proves nothing and is not counted.
 */
export function leakedSecret(
  sample: SecretSample,
  output: string,
  surrounding = '',
): string | undefined {
  for (const secret of sample.secrets) {
    const window = Math.min(10, secret.length);
    for (let start = 0; start + window <= secret.length; start += 1) {
      const piece = secret.slice(start, start + window);
      if (output.includes(piece) && !surrounding.includes(piece)) return piece;
    }
  }
  return undefined;
}
