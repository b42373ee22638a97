import { describe, expect, it } from 'vitest';
import { findCoveringDenial } from '../scope/find-covering-denial.js';
import { pathResource } from '../scope/path-resource.js';
import { resourcesOverlap } from '../scope/resource-match.js';
import { shellResources } from './shell-resources.js';

const options = { cwd: '/work', home: '/home/agent' };
const reach = (command: string) => shellResources(command, options).sort();
const denial = [{ resource: pathResource('/srv/data/secrets/prod.env') }];

describe('git reaches file paths outside its repository', () => {
  it.each<[string, string[]]>([
    [
      'git -C /tmp diff --no-index /srv/x /dev/null',
      ['file:///dev/null', 'file:///srv/x', 'file:///tmp'],
    ],
    // Relative paths are read from the -C directory.
    ['git -C /tmp diff --no-index a ../srv/b', ['file:///srv/b', 'file:///tmp', 'file:///tmp/a']],
    ['git diff /srv/x /dev/null', ['file:///dev/null', 'file:///srv/x', 'file:///work']],
    ['git apply /srv/p.patch', ['file:///srv/p.patch', 'file:///work']],
    ['git am ../mail/box', ['file:///mail/box', 'file:///work']],
    ['git hash-object -w /srv/x', ['file:///srv/x', 'file:///work']],
    ['git format-patch -o /srv/out HEAD~1', ['file:///srv/out', 'file:///work']],
    ['git archive -o /srv/a.tar HEAD', ['file:///srv/a.tar', 'file:///work']],
    ['git archive --add-file=/srv/x HEAD', ['file:///srv/x', 'file:///work']],
    ['git bundle create /srv/b.bundle --all', ['file:///srv/b.bundle', 'file:///work']],
    ['git -C /repo bundle verify x.bundle', ['file:///repo', 'file:///repo/x.bundle']],
    ['git commit -F /srv/msg', ['file:///srv/msg', 'file:///work']],
    ['git blame --contents=/srv/x f.ts', ['file:///srv/x', 'file:///work']],
    ['git init /srv/new', ['file:///srv/new', 'file:///work']],
    ['git worktree add ~/wt', ['file:///home/agent/wt', 'file:///work']],
    ['git -C /tmp clone https://github.com/a/b', ['file:///tmp/b', 'https://github.com/a/b']],
    [
      'git clone --reference /srv/mirror https://gitlab.com/a/b x',
      ['file:///srv/mirror', 'file:///work/x', 'https://gitlab.com/a/b'],
    ],
    ['git config --file /srv/cfg user.name me', ['file:///srv/cfg', 'file:///work']],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });

  it.each<[string, string[]]>([
    [
      'git --git-dir=/srv/x --work-tree=/tmp status',
      ['file:///srv/x', 'file:///tmp', 'file:///work'],
    ],
    ['git --git-dir /srv/x log', ['file:///srv/x', 'file:///work']],
    ['git -C /tmp --git-dir=.git status', ['file:///tmp', 'file:///tmp/.git']],
    ['GIT_DIR=/srv/x git status', ['file:///srv/x', 'file:///work']],
    ['env GIT_WORK_TREE=/srv/w git diff', ['file:///srv/w', 'file:///work']],
    [
      'GIT_ALTERNATE_OBJECT_DIRECTORIES=/a/objects:/b/objects git log',
      ['file:///a/objects', 'file:///b/objects', 'file:///work'],
    ],
    ['GIT_PAGER=cat git log', ['file:///work']],
  ])('repository paths: %s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });

  it.each([
    'git diff --no-index $F /dev/null',
    'GIT_DIR=$D git status',
    'git apply --unsafe-paths p.patch',
    'git init --template=/tmp/t x',
    'git clone --template /tmp/t https://gitlab.com/a/b',
    'git clone -c core.sshCommand="sh -c evil" https://gitlab.com/a/b',
    'git config core.pager "sh -c evil"',
    'git config set core.fsmonitor /tmp/x',
    'GIT_PAGER="sh -c evil" git log',
    'GIT_EXTERNAL_DIFF=/tmp/x git diff',
    'GIT_CONFIG_GLOBAL=/tmp/c git fetch https://gitlab.com/a/b',
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log',
  ])('%s reaches everything (a file or program we cannot see)', (command) => {
    expect(reach(command)).toEqual(['*']);
  });

  it('reaches the denied file by every route, and leaves ordinary git work alone', () => {
    for (const command of [
      'git -C /tmp diff --no-index /srv/data/secrets/prod.env /dev/null',
      'git -C /srv/data/public diff --no-index ../secrets/prod.env readme.md',
      'git hash-object -w /srv/data/secrets/prod.env',
      'git --git-dir=/tmp/g.git --work-tree=/srv/data add -A',
      'GIT_WORK_TREE=/srv/data git status',
      'git archive -o /srv/data/secrets/prod.env HEAD',
    ]) {
      expect(findCoveringDenial(reach(command), denial), command).toBeDefined();
      // For the precise reason: a resource of its own meets the denied file, never `*`.
      const reached = reach(command);
      expect(reached, command).not.toContain('*');
      expect(
        reached.some((resource) => resourcesOverlap(denial[0]!.resource, resource)),
        command,
      ).toBe(true);
    }
    for (const command of [
      'git status',
      'git diff HEAD~1 -- src',
      'git checkout $BRANCH',
      'git commit -m "$MSG"',
      'git log --oneline origin/main..HEAD',
      'git config user.email me@example.com',
      'git -C /tmp diff --no-index /srv/data/public/a /srv/data/secrets.bak/a',
    ]) {
      expect(findCoveringDenial(reach(command), denial), command).toBeUndefined();
    }
  });
});
