import type { Arg } from './shell-word.js';

// Subcommands whose positionals are files anywhere on disk, by position (`all` or an index
// after the verb). `git diff A B` compares two files outside any repository (with
// `--no-index`, or by itself when a path lies outside the work tree); a revision read as a
// path stays inside the repository, which the call reaches anyway.
const filePositionals: Readonly<Record<string, 'all' | number>> = {
  diff: 'all',
  apply: 'all',
  am: 'all',
  'hash-object': 'all',
  init: 0,
  bundle: 1,
};

/** Whether a word visibly names a path outside the directory git runs in. */
function isOutsidePath(word: string): boolean {
  return word.startsWith('/') || word.startsWith('~') || /(^|\/)\.\.(\/|$)/.test(word);
}

/** The value of `--name=value` or `-Xvalue`, or the word itself. */
function wordValues(word: string): string[] {
  if (word.startsWith('--')) {
    const equals = word.indexOf('=');
    return equals === -1 ? [] : [word.slice(equals + 1)];
  }
  if (word.startsWith('-') && word.length > 2) return [word.slice(2)];
  return [word];
}

/**
 * The file paths one git subcommand's arguments may read or write outside its repository:
 * the positionals of commands that take files (`apply`, `am`, `diff`, `bundle create FILE`,
 * `init DIR`), and any argument or option value that is an absolute, `~` or `..` path
 * (`format-patch -o DIR`, `archive --output=FILE`, `commit -F FILE`, `blame --contents`).
 * An unknown word is a file only where a file is expected (`git diff $F`): elsewhere it is
 * most often a revision (`git checkout $BRANCH`).
 */
export function gitFileArguments(
  command: string,
  rest: readonly Arg[],
  positionals: readonly Arg[],
): Arg[] {
  const paths: Arg[] = [];
  const position = filePositionals[command];
  if (position === 'all') paths.push(...positionals);
  else if (position !== undefined && positionals.length > position)
    paths.push(positionals[position] ?? null);
  for (const word of rest) {
    if (word === null) continue;
    for (const value of wordValues(word)) {
      if (isOutsidePath(value)) paths.push(value);
    }
  }
  return paths;
}
