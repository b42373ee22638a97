import type { Arg, Variables } from './shell-word.js';

/** What an extractor knows about the command it reads, and how to read nested commands. */
export interface CommandContext {
  /** The working directory; undefined after a `cd` we could not follow. */
  readonly cwd: string | undefined;
  readonly home: string | undefined;
  /** The command's environment: shell variables plus `VAR=value` prefixes. */
  readonly env: Variables;
  /** Remote name → URL, for `git fetch origin` and the like. */
  readonly gitRemotes: Map<string, string>;
  /** kubectl's current context and namespace, when the caller knows them. */
  readonly kubernetes: { context: string; namespace?: string | undefined } | undefined;
  /** The command's standard input comes from the line: a pipe, `<`, a here-document. */
  readonly inputFromLine: boolean;
  /** A local path as a resource (`*` when it or the working directory is unknown). */
  file(path: Arg): string;
  /** A URL as a resource (`*` when unknown); a brace or glob widens it to its parent. */
  url(url: Arg): string;
  /** The resources of a nested command line given as arguments (`sudo`, `xargs`). */
  run(argv: readonly Arg[]): string[];
  /** The resources of a nested shell script (`bash -c '…'`). */
  script(source: Arg): string[];
}

/** Reads the resources one program's arguments reach. Returns `*` for what it cannot read. */
export type Extractor = (args: readonly Arg[], context: CommandContext) => string[];
