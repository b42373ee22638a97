import { describe, expect, it } from 'vitest';
import { awkReachesOut, sedReachesOut } from './script-reach.js';
import { shellResources } from './shell-resources.js';

describe('sedReachesOut', () => {
  it.each([
    's/foo/bar/',
    's/x/readme/g',
    '$!d',
    '1,/x/{s/a/b/;p}',
    'y/abc/xyz/',
    's/a\\/b/c/',
    '/^#/d;s|/x|y|',
    ':a;N;$!ba;s/\\n/ /g',
    '10,20!p',
    'a hello; e x',
    '# e is only a comment\np',
    '/a/I d',
  ])('%s stays inside its files', (script) => {
    expect(sedReachesOut(script)).toBe(false);
  });

  it.each([
    '1e cat /srv/x',
    'r /srv/x',
    'rfile',
    '/re/ R /x',
    '/x/,$ w out',
    '1W out',
    's/a/b/w /tmp/x',
    's|a|id|e',
    ':a;s/x/y/w /tmp/f',
    'bend;w x',
    'a\\\nline one\\\nline two\ne cat /x',
    's/unterminated',
    'v 4.2; k',
  ])('%s reaches out', (script) => {
    expect(sedReachesOut(script)).toBe(true);
  });
});

describe('awkReachesOut', () => {
  it.each([
    '{print $1}',
    '$3 > 100 {print}',
    'a || b {print}',
    'NR==1',
    '{ n += $2 } END { print n }',
  ])('%s stays inside its files', (program) => {
    expect(awkReachesOut(program)).toBe(false);
  });

  it.each([
    'BEGIN{system("cat /srv/x")}',
    'BEGIN{while ((getline l < "/srv/x") > 0) print l}',
    '{ "date" | getline d }',
    '{print > "/tmp/out"}',
    '{printf "%s", $0 >> "/tmp/out"}',
    '{print | "sh"}',
    '@include "lib"',
  ])('%s reaches out', (program) => {
    expect(awkReachesOut(program)).toBe(true);
  });
});

describe('sed and awk in shell commands', () => {
  const reach = (command: string) => shellResources(command, { cwd: '/work', home: '/h' });

  it('read their operands, not their script', () => {
    expect(reach("sed -i 's/a/b/g' /srv/a")).toEqual(['file:///srv/a']);
    expect(reach("sed -n -e 's/a/b/p' -e '/x/d' /srv/a")).toEqual(['file:///srv/a']);
    expect(reach("awk -F, '{print $1}' /srv/a")).toEqual(['file:///srv/a']);
    expect(reach("gawk -e 'BEGIN{print 1}' /srv/a")).toEqual(['file:///srv/a']);
  });

  it.each([
    'awk \'BEGIN{system("cat /srv/data/secrets/prod.env")}\'',
    "sed -n '1e cat /srv/data/secrets/prod.env' /dev/null",
    "sed -e 's/a/b/' -e 'r /srv/x' /y",
    'sed -f script.sed /a',
    'awk -f program.awk /a',
    'gawk -l ordchr /a',
  ])('%s reaches everything', (command) => {
    expect(reach(command)).toEqual(['*']);
  });
});
