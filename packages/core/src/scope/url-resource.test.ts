import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicaliseResource } from './canonicalise-resource.js';
import { httpCapability, httpResource } from './http-resource.js';
import { pathResource } from './path-resource.js';
import { resourceCovers } from './resource-match.js';
import { urlResource } from './url-resource.js';

const secret = urlResource('https://github.com/acme/secret');

describe('urlResource', () => {
  it.each([
    'https://github.com/acme/secret',
    'https://api.github.com/repos/acme/secret/contents/x',
    'git@github.com:acme/secret.git',
    'https://github.com/ACME/Secret',
    'https://github.com/acme/%53ecret',
    'https://github.com/ACME/Secret.git',
    'https://github.com/acme/secret/',
    'https://github.com/acme/secret.git/',
    'https://api.github.com/repos/acme/other/../secret',
    'https://api.github.com/repos/acme/other/%2e%2e/secret/issues',
    'https://github.com//acme//secret',
    'ssh://git@github.com/acme/secret',
    'ssh://git@github.com:22/Acme/Secret.git',
    'git://github.com/acme/secret',
    'http://GitHub.com./acme/secret?tab=readme#top',
    'https://x-access-token:t@github.com/acme/secret.git',
    'https://raw.githubusercontent.com/acme/secret/main/README.md',
    'https://codeload.github.com/acme/secret/zip/refs/heads/main',
    'https://uploads.github.com/repos/acme/secret/releases/1/assets',
    'github.com/acme/secret',
  ])('%s is covered by a denial of acme/secret', (url) => {
    expect(resourceCovers(secret, urlResource(url))).toBe(true);
  });

  it('gives the same string for the contract routes', () => {
    const routes = [
      'https://github.com/acme/secret',
      'git@github.com:acme/secret.git',
      'https://github.com/ACME/Secret',
    ];
    expect(new Set(routes.map(urlResource))).toEqual(new Set(['https://github.com/acme/secret']));
  });

  it.each([
    'https://github.com/acme/secret-2',
    'https://github.com/acme/secretary',
    'https://api.github.com/repos/acme/secretary',
    'https://github.com/acme/public',
    'https://gitlab.com/acme/secret',
    'https://github.com.evil.com/acme/secret',
  ])('%s is not covered by a denial of acme/secret', (url) => {
    expect(resourceCovers(secret, urlResource(url))).toBe(false);
  });

  it('maps GitLab and Bitbucket routes to one project', () => {
    expect(urlResource('https://gitlab.com/api/v4/projects/acme%2Fsecret/repository/files')).toBe(
      'https://gitlab.com/acme/secret/repository/files',
    );
    expect(urlResource('git@gitlab.com:Acme/Group/Secret.git')).toBe(
      'https://gitlab.com/acme/group/secret',
    );
    expect(urlResource('https://gitlab.com/acme/group/secret/-/issues/1')).toBe(
      'https://gitlab.com/acme/group/secret/-/issues/1',
    );
    expect(urlResource('https://api.bitbucket.org/2.0/repositories/Acme/Secret/src')).toBe(
      'https://bitbucket.org/acme/secret/src',
    );
  });

  it('widens API routes that may reach any repository to all of GitHub', () => {
    expect(urlResource('https://api.github.com/search/code?q=repo:acme/secret')).toBe(
      'https://github.com',
    );
    expect(urlResource('https://api.github.com/graphql')).toBe('https://github.com');
    expect(urlResource('https://api.github.com/repositories/123')).toBe('https://github.com');
  });

  it('normalises ordinary web URLs', () => {
    expect(urlResource('HTTPS://Example.COM:443/a/./b/../%7euser/%2f/x/')).toBe(
      'https://example.com/a/~user/%2F/x',
    );
    expect(urlResource('http://example.com:8080/a')).toBe('https://example.com:8080/a');
    expect(urlResource('https://example.com/a%c3%a9')).toBe('https://example.com/a%C3%A9');
  });

  it('reads the other schemes', () => {
    expect(urlResource('ssh://deploy@Prod-1:2222/srv')).toBe('ssh://prod-1');
    expect(urlResource('s3://Bucket/reports/q1.csv')).toBe('s3://bucket/reports/q1.csv');
    expect(urlResource('s3://bucket/a/../secret')).toBe('s3://bucket');
    expect(urlResource('postgresql://u:pw@DB.internal/prod?sslmode=require')).toBe(
      'postgres://db.internal:5432/prod',
    );
    expect(urlResource('file:///etc/../etc//passwd')).toBe('file:///etc/passwd');
    expect(urlResource(' Payment:p-42 ')).toBe('payment:p-42');
  });

  it('decodes file: URLs the way curl and fetch do', () => {
    expect(urlResource('file:///srv/data/secrets/%70rod.env')).toBe(
      'file:///srv/data/secrets/prod.env',
    );
    expect(urlResource('file:///srv/a%20b/%2e%2e/c')).toBe('file:///srv/c');
    expect(urlResource('file://localhost/etc/passwd')).toBe('file:///etc/passwd');
    expect(urlResource('FILE:/etc/passwd')).toBe('file:///etc/passwd');
    expect(urlResource('file:///tmp/%00x')).toBe('*');
    // Not a local file: curl refuses it, so it is not read as a path below cwd either.
    expect(urlResource('file://srv/data/secrets')).toBe('*');
    // A bad escape stays as written.
    expect(urlResource('file:///srv/%zz')).toBe('file:///srv/%zz');
  });

  it.each([
    'https://acme-private.s3.amazonaws.com/report.csv',
    'https://ACME-Private.s3.eu-west-1.amazonaws.com/report.csv?versionId=3',
    'https://acme-private.s3-eu-west-1.amazonaws.com/report.csv',
    'http://acme-private.s3.dualstack.us-east-1.amazonaws.com/%72eport.csv',
    'https://s3.amazonaws.com/acme-private/report.csv',
    'https://s3.eu-west-1.amazonaws.com/acme-private/report.csv',
    'https://s3-eu-west-1.amazonaws.com/acme-private/report.csv',
    'https://s3.cn-north-1.amazonaws.com.cn/acme-private/report.csv',
    'acme-private.s3.amazonaws.com/report.csv',
  ])('maps the S3 HTTPS endpoint %s to the object', (url) => {
    expect(urlResource(url)).toBe('s3://acme-private/report.csv');
  });

  it('reads S3 buckets, keys and endpoints that could hide another bucket', () => {
    expect(urlResource('https://my.dotted.bucket.s3.amazonaws.com/k')).toBe(
      's3://my.dotted.bucket/k',
    );
    expect(urlResource('https://acme-private.s3.amazonaws.com/')).toBe('s3://acme-private');
    expect(urlResource('https://s3.amazonaws.com/')).toBe('aws://s3');
    // A dot segment widens a key to its bucket and a path-style bucket to everything.
    expect(urlResource('https://acme-private.s3.amazonaws.com/a/../report.csv')).toBe(
      's3://acme-private',
    );
    expect(urlResource('https://s3.amazonaws.com/acme-public/../acme-private/x')).toBe('*');
    // An access point alias may front any bucket.
    expect(urlResource('https://ap-1.s3-accesspoint.us-east-1.amazonaws.com/x')).toBe('*');
    // Hosts that only look like S3 stay web hosts.
    expect(urlResource('https://s3.amazonaws.com.evil.com/acme-private/x')).toBe(
      'https://s3.amazonaws.com.evil.com/acme-private/x',
    );
    expect(urlResource('https://nots3.amazonaws.com/x')).toBe('https://nots3.amazonaws.com/x');
    expect(urlResource('https://acme-private.s3.example.com/x')).toBe(
      'https://acme-private.s3.example.com/x',
    );
  });

  it('reaches everything when it cannot understand the input', () => {
    expect(urlResource('')).toBe('*');
    expect(urlResource('not a url')).toBe('*');
    expect(urlResource('https://')).toBe('*');
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const once = urlResource(url);
        expect(urlResource(once)).toBe(once);
      }),
    );
    const hosts = fc.constantFrom(
      'github.com',
      'api.github.com',
      'gitlab.com',
      'GitHub.com',
      'example.com',
    );
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,8}$/);
    fc.assert(
      fc.property(hosts, fc.array(segment, { maxLength: 5 }), (host, segments) => {
        const once = urlResource(`https://${host}/${segments.join('/')}`);
        expect(urlResource(once)).toBe(once);
      }),
    );
  });
});

describe('urlResource: endpoints that reach no repository', () => {
  it.each([
    ['https://api.github.com/user', 'https://github.com/-/user'],
    ['https://api.github.com/user/emails', 'https://github.com/-/user/emails'],
    ['https://api.github.com/users/Octocat', 'https://github.com/-/users/octocat'],
    ['https://api.github.com/orgs/acme', 'https://github.com/-/orgs/acme'],
    ['https://api.github.com/rate_limit', 'https://github.com/-/rate_limit'],
    ['https://gitlab.com/api/v4/user', 'https://gitlab.com/-/user'],
    ['https://api.bitbucket.org/2.0/user', 'https://bitbucket.org/-/user'],
  ])('%s is %s: apart from every repository, below the host', (url, resource) => {
    expect(urlResource(url)).toBe(resource);
    expect(resourceCovers(secret, resource)).toBe(false);
    expect(resourceCovers(resource, secret)).toBe(false);
    expect(resourceCovers(urlResource('https://github.com'), urlResource(url))).toBe(
      url.includes('github'),
    );
  });

  it.each([
    'https://api.github.com/user/repos',
    'https://api.github.com/orgs/acme/repos',
    'https://api.github.com/users/acme/repos',
    'https://api.github.com/user/starred/acme/secret',
  ])('%s may list or reach repositories: it stays wide', (url) => {
    expect(resourceCovers(urlResource(url), secret)).toBe(true);
  });

  it('reads an IPv4 address written as IPv6 as that address', () => {
    expect(urlResource('https://[::ffff:10.0.0.5]/admin')).toBe('https://10.0.0.5/admin');
    expect(urlResource('https://[0:0:0:0:0:ffff:a00:5]/admin')).toBe('https://10.0.0.5/admin');
    expect(urlResource('https://0x0a.0.0.5/admin')).toBe('https://10.0.0.5/admin');
    expect(urlResource('https://167772165/admin')).toBe('https://10.0.0.5/admin');
    expect(urlResource('https://[::1]/admin')).toBe('https://[::1]/admin');
  });
});

describe('pathResource', () => {
  it('reads /proc/self/root as / and fails closed on other process links and ~user', () => {
    expect(pathResource('/proc/self/root/srv/data/x')).toBe('file:///srv/data/x');
    expect(pathResource('/proc/thread-self/root/proc/self/root/etc/shadow')).toBe(
      'file:///etc/shadow',
    );
    expect(pathResource('/proc/1/root/etc/shadow')).toBe('*');
    expect(pathResource('/proc/self/cwd/x')).toBe('*');
    expect(pathResource('/proc/self/fd/3')).toBe('*');
    expect(pathResource('/proc/cpuinfo')).toBe('file:///proc/cpuinfo');
    expect(pathResource('~root/.ssh/id_rsa')).toBe('*');
  });

  it('resolves against cwd and home', () => {
    expect(pathResource('a//b/../c/', { cwd: '/work' })).toBe('file:///work/a/c');
    expect(pathResource('~/.ssh/id_rsa', { home: '/home/agent' })).toBe(
      'file:///home/agent/.ssh/id_rsa',
    );
    expect(pathResource('/etc/../etc/./shadow')).toBe('file:///etc/shadow');
    expect(pathResource('../../..', { cwd: '/a' })).toBe('file:///');
  });

  it('is idempotent and covered by its parent', () => {
    const once = pathResource('/srv/secret/x');
    expect(pathResource(once)).toBe(once);
    expect(resourceCovers(pathResource('/srv/secret'), once)).toBe(true);
    expect(resourceCovers(pathResource('/srv/secret'), pathResource('/srv/secret-2'))).toBe(false);
  });
});

describe('httpResource', () => {
  it('returns the URL resource and a capability from the method', () => {
    expect(httpResource('DELETE', 'https://api.github.com/repos/acme/secret')).toEqual([
      'https://github.com/acme/secret',
    ]);
    expect(httpCapability('get')).toBe('read');
    expect(httpCapability('POST')).toBe('write');
    expect(httpCapability('DELETE')).toBe('delete');
  });
});

describe('canonicaliseResource', () => {
  it('dispatches on the form and is idempotent', () => {
    for (const input of [
      'https://github.com/ACME/x',
      '/etc/x',
      'git@github.com:a/b.git',
      'Repo:acme/secret',
      '*',
    ]) {
      const once = canonicaliseResource(input);
      expect(canonicaliseResource(once)).toBe(once);
    }
    expect(canonicaliseResource('Repo:acme/secret')).toBe('repo:acme/secret');
  });
});
