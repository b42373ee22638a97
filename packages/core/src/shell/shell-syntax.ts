import { ShellParserUnavailableError } from '../errors.js';
import { loadMvdanSh } from './load-mvdan-sh.cjs';

/**
 * The parts of the mvdan-sh AST (https://pkg.go.dev/mvdan.cc/sh/v3/syntax) we read.
 * mvdan-sh is the Go mvdan/sh parser compiled to JS: a real POSIX/Bash grammar, so `$(…)`,
 * backticks, `bash -c '…'` strings, here-docs and redirections parse the way the shell
 * sees them. Fields are getters on GopherJS objects; nil pointers arrive as null.
 */
export interface ShellNode {
  readonly [field: string]: unknown;
}
export interface Stmt extends ShellNode {
  Cmd: ShellNode | null;
  Redirs: Redirect[];
}
export interface Word extends ShellNode {
  Parts: ShellNode[];
}
export interface Redirect extends ShellNode {
  Op: number;
  Word: Word | null;
  Hdoc: Word | null;
}
export interface Assign extends ShellNode {
  Name: { Value: string } | null;
  Value: Word | null;
  Array: ShellNode | null;
  Index: ShellNode | null;
  Append: boolean;
}

interface Syntax {
  NewParser(): { Parse(source: string, name: string): { Stmts: Stmt[] } };
  NodeType(node: unknown): string;
  Walk(node: unknown, visit: (node: ShellNode | null | undefined) => boolean): void;
}

let syntax: Syntax | undefined;
let unavailable: ShellParserUnavailableError | undefined;

const fix =
  'Install it beside @recourse/core (`npm i mvdan-sh`); in a bundle, let the bundler include it ' +
  '(it is reached through a plain require of "mvdan-sh"), or ship node_modules/mvdan-sh with ' +
  'the bundle if you mark it external.';

function isSyntax(value: unknown): value is Syntax {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Syntax>).NewParser === 'function' &&
    typeof (value as Partial<Syntax>).Walk === 'function'
  );
}

/**
 * Loaded on first use: the parser is 1.5 MB of JS and takes ~100 ms to load. A failure is
 * said once on the console (the runtime also emits `resource.failed` per run) and thrown as
 * `ShellParserUnavailableError` on every parse, so that a shell command reaches everything.
 */
function load(): Syntax {
  if (syntax !== undefined) return syntax;
  if (unavailable === undefined) {
    let cause: unknown;
    try {
      const loaded = (loadMvdanSh() as { syntax?: unknown } | undefined)?.syntax;
      if (isSyntax(loaded)) {
        syntax = loaded;
        return syntax;
      }
      cause = new TypeError('mvdan-sh loaded without its `syntax` export');
    } catch (error) {
      cause = error;
    }
    unavailable = new ShellParserUnavailableError(fix, { cause });
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    console.warn(`recourse: ${unavailable.message} (${reason})`);
  }
  throw new ShellParserUnavailableError(fix, { cause: unavailable.cause });
}

/** Parses a Bash command line; undefined when it does not parse. */
export function parseShell(source: string): Stmt[] | undefined {
  const parser = load().NewParser();
  try {
    return [...parser.Parse(source, 'command').Stmts];
  } catch {
    // The parser throws Go error objects, not Errors; any throw means "not understood".
    return undefined;
  }
}

export function nodeType(node: unknown): string {
  return load().NodeType(node);
}

export function walkNodes(node: unknown, visit: (node: ShellNode) => boolean): void {
  load().Walk(node, (child) => (child === null || child === undefined ? true : visit(child)));
}

/** mvdan/sh RedirOperator values (token.go): `>` is 54 … `&>>` is 65. */
export const redirectOperators = {
  out: 54,
  append: 55,
  in: 56,
  inOut: 57,
  duplicateIn: 58,
  duplicateOut: 59,
  clobber: 60,
  heredoc: 61,
  dashHeredoc: 62,
  hereString: 63,
  all: 64,
  appendAll: 65,
} as const;
