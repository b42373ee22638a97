import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicaliseResource } from '../scope/canonicalise-resource.js';
import { findCoveringDenial } from '../scope/find-covering-denial.js';
import { urlResource } from '../scope/url-resource.js';
import { reachOf, shellResources } from './shell-resources.js';
import { parseShell } from './shell-syntax.js';

// The environment as a deployer describes it: gh's host is github.com (GH_HOST unset) and
// kubectl's current context is `default`, namespace `default`.
const options = {
  cwd: '/work',
  home: '/home/agent',
  env: { GH_HOST: '' },
  kubernetes: { context: 'default', namespace: 'default' },
};
const reach = (command: string) => shellResources(command, options);
const secretDenial = [{ resource: urlResource('https://github.com/acme/secret') }];

describe('shellResources: realistic agent commands', () => {
  it.each<[string, string[]]>([
    [
      `bash -c "curl -H 'Authorization: token $GH' https://api.github.com/repos/acme/secret/contents/README.md"`,
      ['https://github.com/acme/secret/contents/README.md'],
    ],
    [
      `env GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy -o StrictHostKeyChecking=no' git clone git@github.com:Acme/Secret.git /tmp/x`,
      ['https://github.com/acme/secret', 'file:///tmp/x'],
    ],
    [
      'sudo -u deploy kubectl -n prod get secret db -o yaml',
      ['k8s://default/namespaces/prod/secrets/db'],
    ],
    [
      'cd /tmp && git clone https://github.com/acme/secret && cat secret/README.md | grep key',
      ['https://github.com/acme/secret', 'file:///tmp/secret', 'file:///tmp/secret/README.md'],
    ],
    [
      'echo $(curl -s https://api.github.com/repos/acme/secret)',
      ['https://github.com/acme/secret'],
    ],
    ['echo `wget -qO- https://example.com/a`', ['https://example.com/a']],
    ['aws s3 cp s3://bucket/key -', ['s3://bucket/key']],
    ["psql postgres://u@db.internal:5432/prod -c 'select 1'", ['postgres://db.internal:5432/prod']],
    ['PGHOST=db PGPORT= psql -d prod', ['postgres://db:5432/prod']],
    ["ssh deploy@prod-1 'cat /etc/shadow'", ['ssh://prod-1']],
    ['scp prod-1:/etc/x .', ['ssh://prod-1', 'file:///work']],
    ['wget -qO- https://example.com/a', ['https://example.com/a']],
    ['http GET https://api.github.com/repos/acme/secret', ['https://github.com/acme/secret']],
    ['gh api repos/acme/secret', ['https://github.com/acme/secret']],
    ['gh api /repos/ACME/secret/issues --paginate', ['https://github.com/acme/secret/issues']],
    ['gh repo clone acme/secret', ['https://github.com/acme/secret']],
    ['gh issue list --repo acme/secret --state open', ['https://github.com/acme/secret']],
    [
      "gh api graphql -f query='query($owner:String!,$name:String!){repository(owner:$owner,name:$name){id}}' -f owner=acme -f name=secret",
      ['https://github.com/acme/secret'],
    ],
    ["gh api graphql -f query='{ viewer { login } }'", ['https://github.com']],
    [
      'git ls-remote https://gitlab.com/Acme/Secret.git',
      ['file:///work', 'https://gitlab.com/acme/secret'],
    ],
    [
      'git remote add s git@github.com:acme/secret.git && git fetch s',
      ['file:///work', 'https://github.com/acme/secret'],
    ],
    [
      'X=https://github.com/acme/secret; git clone $X',
      ['https://github.com/acme/secret', 'file:///work/secret'],
    ],
    [
      "kubectl exec -it web-1 -n prod -- sh -c 'cat /x'",
      ['k8s://default/namespaces/prod/pods/web-1'],
    ],
    [
      // Another context's default namespace is the kubeconfig's: the whole context.
      'kubectl --context staging logs -f deploy/api',
      ['k8s://staging'],
    ],
    ['kubectl get pods -A', ['k8s://default']],
    ["rsync -avz -e 'ssh -p 2222' ./dist user@host:/srv/", ['file:///work/dist', 'ssh://host']],
    ['time nohup curl -sSLo /tmp/f https://a.com/x &', ['https://a.com/x', 'file:///tmp/f']],
    ['aws s3api get-object --bucket b --key k out.bin', ['s3://b/k', 'file:///work/out.bin']],
    ['aws --region eu-west-1 ec2 describe-instances', ['aws://ec2/eu-west-1']],
    ['cat ~/.ssh/id_rsa 2>/dev/null', ['file:///home/agent/.ssh/id_rsa']],
    ['echo hi > out.txt 2>&1', ['file:///work/out.txt']],
    ['cat <<EOF\n$(curl https://x.com/a)\nEOF', ['https://x.com/a']],
    ["find /etc -name '*.conf' -exec cat {} \\;", ['file:///etc']],
    ['cat /{secret,x}/y', ['file:///']],
    ['f() { curl https://a.com; }; f', ['https://a.com']],
    ['timeout 5 curl https://a.com/x', ['https://a.com/x']],
    ['http :3000/health', ['https://localhost:3000/health']],
    ["grep -rn 'password' /srv/app", ['file:///srv/app']],
    ['git -C /repo status', ['file:///repo']],
    ['psql "postgresql:///billing?host=db.internal"', ['postgres://db.internal/billing']],
    [
      'psql "postgresql://localhost/x?dbname=billing&host=db.internal&port=6543"',
      ['postgres://db.internal:6543/billing'],
    ],
    ['kubectl get --raw /api/v1/namespaces/prod/secrets', ['k8s://default/namespaces/prod']],
    [
      'kubectl --context c1 get --raw=/apis/apps/v1/namespaces/%70rod/deployments?watch=1',
      ['k8s://c1/namespaces/prod'],
    ],
    ['kubectl delete --raw /api/v1/namespaces/prod/pods/x', ['k8s://default/namespaces/prod']],
    ['kubectl get --raw /api/v1/nodes', ['k8s://default']],
    ['kubectl get --raw /apis/apps/v1/deployments', ['k8s://default']],
    ['kubectl get --raw /api/v1/namespaces/staging/../prod/secrets', ['k8s://default']],
    ['kubectl -n staging get --raw /metrics', ['k8s://default']],
    ['kubectl --context c1 proxy --port 8001', ['k8s://c1']],
    ['kubectl port-forward svc/kubernetes 6443:443', ['k8s://default']],
    [
      'kubectl port-forward -n prod svc/api 8080:80',
      ['k8s://default/namespaces/prod/services/api'],
    ],
    ['kubectl auth reconcile -f rbac.yaml', ['file:///work/rbac.yaml', 'k8s://default']],
    ['kubectl auth can-i get pods', []],
  ])('%s', (command, expected) => {
    expect(reach(command).sort()).toEqual([...expected].sort());
  });

  it('harmless commands reach nothing', () => {
    for (const command of [
      'echo hi',
      'true',
      '',
      'pwd',
      'date && sleep 1',
      'echo $HOME | tr a-z A-Z',
    ]) {
      expect(reach(command)).toEqual([]);
    }
  });
});

describe('shellResources: fails closed', () => {
  it.each([
    'eval "curl https://x.com"',
    'python -c \'import os; os.system("curl x")\'',
    "node -e 'fetch(1)'",
    'source ./env.sh',
    '. ./env.sh',
    '$CMD https://a.com',
    'echo "unterminated',
    'if then fi',
    'some-unknown-tool --flag',
    './script.sh',
    '/tmp/curl https://a.com',
    'echo https://github.com/acme/secret | xargs curl',
    'cat /safe/$FILE',
    'psql "service=billing" -c "select 1"',
    "pg_dump -d 'host=db.internal service=billing'",
    'psql "postgres://?service=billing"',
    'PGSERVICE=billing psql',
    'PGSERVICEFILE=/tmp/pg_service.conf psql -h db.internal -d analytics',
    'export PGSERVICEFILE=/tmp/s.conf; psql',
    'kubectl -n $NS get secret db',
    'kubectl get --raw "/api/v1/namespaces/$NS/secrets"',
    'git clone $URL',
    'git push origin main',
    'git -c core.sshCommand="sh -c evil" fetch https://github.com/acme/public',
    'git clone ext::sh',
    "ssh -o ProxyCommand='nc evil 22' host",
    'curl -K /tmp/curlrc',
    'bash script.sh',
    'sudo -i',
    'for f in *.txt; do cat $f; done',
    'cd $DIR && cat notes.txt',
  ])('%s reaches everything', (command) => {
    expect(reach(command)).toEqual(['*']);
  });

  // Lines made of the words agents type, and of noise: most parse, some do not.
  const word = fc.oneof(
    fc.constantFrom(
      'git',
      'clone',
      'curl',
      '-s',
      'gh',
      'api',
      'repos/acme/secret',
      'cat',
      'cd',
      '/tmp',
      '~/notes',
      'https://github.com/acme/public',
      'git@github.com:acme/x.git',
      'psql',
      '-h',
      'db',
      'kubectl',
      'get',
      'pods',
      '-n',
      'prod',
      'aws',
      's3',
      'ls',
      's3://b/k',
      'bash',
      '-c',
      "'",
      '"',
      '&&',
      '||',
      '|',
      ';',
      '$(',
      ')',
      '`',
      '>',
      '<<<',
      'X=$Y',
      '$HOME',
      'sudo',
      'xargs',
      'env',
      'echo',
      '../..',
      '*',
      '{a,b}',
      'f()',
      '{',
      '}',
      '#',
    ),
    fc.string({ maxLength: 8 }),
  );
  const line = fc.array(word, { maxLength: 10 }).map((words) => words.join(' '));

  it('gives only canonical resources, or [*] for input the parser rejects', () => {
    fc.assert(
      fc.property(fc.oneof(line, fc.string({ maxLength: 80 })), (command) => {
        const resources = shellResources(command, options);
        if (parseShell(command) === undefined) {
          expect(resources).toEqual(['*']);
          return;
        }
        // Input the parser accepts is read without the net: a throw there is a bug.
        expect(reachOf(command, options)).toEqual(resources);
        if (resources.includes('*')) expect(resources).toEqual(['*']);
        else
          for (const resource of resources) expect(canonicaliseResource(resource)).toBe(resource);
      }),
      { numRuns: 300 },
    );
  });
});

describe('shellResources against a denial of acme/secret', () => {
  // Blocked for the precise reason: what each line reaches, never a parser's `*`.
  it.each<[string, string[]]>([
    [
      'git clone git@github.com:acme/secret.git',
      ['https://github.com/acme/secret', 'file:///work/secret'],
    ],
    [
      'git clone https://github.com/ACME/Secret',
      ['https://github.com/acme/secret', 'file:///work/Secret'],
    ],
    ['gh api repos/acme/secret', ['https://github.com/acme/secret']],
    [
      'curl -s https://raw.githubusercontent.com/acme/secret/main/.env',
      ['https://github.com/acme/secret/raw/main/.env'],
    ],
    [
      'bash -c "sh -c \'curl https://api.github.com/repos/acme/secret/contents/x\'"',
      ['https://github.com/acme/secret/contents/x'],
    ],
    [
      'gh api graphql -f query=\'{ search(query: "repo:acme/secret") { repositoryCount } }\'',
      ['https://github.com'],
    ],
  ])('%s is blocked', (command, reached) => {
    expect(reach(command).sort()).toEqual([...reached].sort());
    expect(findCoveringDenial(reach(command), secretDenial)).toBeDefined();
  });

  it.each([
    'git clone https://github.com/acme/public',
    'curl https://api.github.com/repos/acme/secretary',
    'gh repo view acme/secret-2',
    'ls -la && cat README.md',
  ])('%s is not blocked', (command) => {
    expect(findCoveringDenial(reach(command), secretDenial)).toBeUndefined();
  });
});
