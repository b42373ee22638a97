import { everything } from '../scope/canonical-resource.js';
import { pathResource } from '../scope/path-resource.js';
import { urlResource } from '../scope/url-resource.js';
import type { CommandContext } from './command-context.js';
import { isSet } from './environment.js';
import { findExtractor } from './programs.js';
import {
  type Assign,
  nodeType,
  parseShell,
  type Redirect,
  redirectOperators,
  type ShellNode,
  type Stmt,
  type Word,
} from './shell-syntax.js';
import { type Arg, substitutions, wordValue } from './shell-word.js';
import { isSteeringFile, steeringVariables } from './steering-files.js';
import { widenGlob } from './widen-glob.js';

export interface WalkState {
  cwd: string | undefined;
  home: string | undefined;
  variables: Map<string, Arg>;
  functions: Set<string>;
  gitRemotes: Map<string, string>;
  kubernetes: { context: string; namespace?: string | undefined } | undefined;
  /** The statement being read takes its standard input from the line. */
  inputFromLine: boolean;
  depth: number;
  out: Set<string>;
}

const maxDepth = 8;
const pipeOperators = new Set([12, 13]); // `|` and `|&` run each side in a subshell
const inputOperators = new Set<number>([
  redirectOperators.in,
  redirectOperators.inOut,
  redirectOperators.heredoc,
  redirectOperators.dashHeredoc,
  redirectOperators.hereString,
]);
const harmlessDevices = /^\/dev\/(null|stdin|stdout|stderr|tty|zero|u?random|fd\/\d+)$/;

function clone(state: WalkState): WalkState {
  return { ...state, variables: new Map(state.variables), functions: new Set(state.functions) };
}

/** After a branch that may or may not run, what it changed is no longer known. */
function merge(state: WalkState, branch: WalkState): void {
  if (branch.cwd !== state.cwd) state.cwd = undefined;
  for (const [name, value] of branch.variables) {
    if (state.variables.get(name) !== value) state.variables.set(name, null);
  }
  for (const name of branch.functions) state.functions.add(name);
}

export function walkScript(source: string, state: WalkState): void {
  const statements = state.depth > maxDepth ? undefined : parseShell(source);
  if (statements === undefined) state.out.add(everything);
  else walkStatements(statements, state);
}

function walkStatements(statements: readonly Stmt[], state: WalkState): void {
  for (const statement of statements) walkStatement(statement, state);
}

function walkBranch(statements: readonly Stmt[], state: WalkState): void {
  const branch = clone(state);
  walkStatements(statements, branch);
  merge(state, branch);
}

function walkSubstitutions(node: unknown, state: WalkState): void {
  for (const statements of substitutions(node)) walkStatements(statements, clone(state));
}

function walkStatement(statement: Stmt, state: WalkState, piped = false): void {
  for (const redirect of statement.Redirs) walkRedirect(redirect, state);
  if (statement.Cmd === null) return;
  const fed =
    state.inputFromLine ||
    piped ||
    statement.Redirs.some((redirect) => inputOperators.has(redirect.Op));
  if (fed === state.inputFromLine) {
    walkCommand(statement.Cmd, state);
    return;
  }
  const before = state.inputFromLine;
  state.inputFromLine = fed;
  walkCommand(statement.Cmd, state);
  state.inputFromLine = before;
}

function walkRedirect(redirect: Redirect, state: WalkState): void {
  if (redirect.Hdoc !== null) walkSubstitutions(redirect.Hdoc, state);
  if (redirect.Word === null) return;
  walkSubstitutions(redirect.Word, state);
  const op = redirect.Op;
  if (op === redirectOperators.heredoc || op === redirectOperators.dashHeredoc) return;
  if (op === redirectOperators.hereString) return;
  const target = wordValue(redirect.Word, state.variables);
  const duplicate = op === redirectOperators.duplicateIn || op === redirectOperators.duplicateOut;
  if (duplicate && target !== null && /^(\d+-?|-)$/.test(target)) return;
  if (target !== null && harmlessDevices.test(target)) return;
  state.out.add(fileResource(target, state));
}

function walkCommand(command: ShellNode, state: WalkState): void {
  const type = nodeType(command);
  switch (type) {
    case 'CallExpr':
      walkCall(command.Assigns as Assign[], command.Args as Word[], state);
      return;
    case 'BinaryCmd': {
      const pipe = pipeOperators.has(command.Op as number);
      walkStatement(command.X as Stmt, pipe ? clone(state) : state);
      walkStatement(command.Y as Stmt, pipe ? clone(state) : state, pipe);
      return;
    }
    case 'Subshell':
      walkStatements(command.Stmts as Stmt[], clone(state));
      return;
    case 'Block':
      walkStatements(command.Stmts as Stmt[], state);
      return;
    case 'IfClause':
      walkStatements(command.Cond as Stmt[], state);
      walkBranch(command.Then as Stmt[], state);
      if (command.Else !== null)
        walkBranch([{ Cmd: command.Else, Redirs: [] } as unknown as Stmt], state);
      return;
    case 'WhileClause':
      walkBranch([...(command.Cond as Stmt[]), ...(command.Do as Stmt[])], state);
      return;
    case 'ForClause': {
      walkSubstitutions(command.Loop, state);
      const branch = clone(state);
      const name = ((command.Loop as ShellNode).Name as { Value?: string } | null)?.Value;
      if (name !== undefined) branch.variables.set(name, null);
      walkStatements(command.Do as Stmt[], branch);
      merge(state, branch);
      return;
    }
    case 'CaseClause':
      walkSubstitutions(command.Word, state);
      for (const item of command.Items as ShellNode[]) walkBranch(item.Stmts as Stmt[], state);
      return;
    case 'FuncDecl': {
      state.functions.add(String((command.Name as { Value: string }).Value));
      walkBranch([command.Body as Stmt], state);
      return;
    }
    case 'DeclClause':
      walkAssigns(command.Args as Assign[], state);
      return;
    case 'TimeClause':
    case 'CoprocClause':
      if (command.Stmt !== null) walkStatement(command.Stmt as Stmt, state);
      return;
    case 'TestClause':
    case 'ArithmCmd':
    case 'LetClause':
      // Tests and arithmetic reach nothing themselves; their substitutions may.
      walkSubstitutions(command, state);
      return;
    default:
      state.out.add(everything);
  }
}

function walkAssigns(assigns: readonly Assign[], state: WalkState): void {
  for (const assign of assigns) {
    walkSubstitutions(assign, state);
    const name = assign.Name?.Value;
    if (name === undefined) continue;
    const value = assign.Value === null ? '' : wordValue(assign.Value, state.variables);
    const known = assign.Array === null && assign.Index === null && !assign.Append;
    state.variables.set(name, known ? value : null);
  }
}

function walkCall(assigns: readonly Assign[], words: readonly Word[], state: WalkState): void {
  if (words.length === 0) {
    walkAssigns(assigns, state);
    return;
  }
  const env = clone(state);
  walkAssigns(assigns, env);
  for (const word of words) walkSubstitutions(word, state);
  const argv = words.map((word) => wordValue(word, state.variables));
  for (const resource of runCommand(
    argv,
    { ...state, variables: env.variables, out: state.out },
    state,
  )) {
    state.out.add(resource);
  }
}

function fileResource(path: Arg, state: WalkState): string {
  if (path === null) return everything;
  const widened = widenGlob(path);
  if (state.cwd === undefined && !widened.startsWith('/') && !widened.startsWith('~'))
    return everything;
  const home = homeOf(state);
  if (home === null && widened.startsWith('~')) return everything;
  const resource = pathResource(widened === '' ? '.' : widened, {
    cwd: state.cwd,
    home: home ?? undefined,
  });
  return isSteeringFile(resource) ? everything : resource;
}

/** What `~` expands to: `$HOME` as the line last set it (null when that is unknown). */
function homeOf(state: WalkState): string | null | undefined {
  return state.variables.has('HOME') ? (state.variables.get('HOME') ?? null) : state.home;
}

/** Runs one command's extractor. `cd` changes `target`'s working directory. */
export function runCommand(argv: readonly Arg[], state: WalkState, target: WalkState): string[] {
  const [program, ...args] = argv;
  if (program === undefined) return [];
  if (program === null) return [everything];
  if (program === 'cd' || program === 'pushd') {
    target.cwd = changeDirectory(args, state);
    return [];
  }
  if (program === 'popd') {
    target.cwd = undefined;
    return [];
  }
  if (state.functions.has(program)) return [];
  // A steering file under another name: the program may read what an earlier command wrote.
  if (steeringVariables.some((name) => isSet(state.variables, name))) return [everything];
  const extractor = findExtractor(program);
  if (extractor === undefined) return [everything];
  return extractor(args, createContext(state));
}

function createContext(state: WalkState): CommandContext {
  return {
    cwd: state.cwd,
    home: state.home,
    env: state.variables,
    gitRemotes: state.gitRemotes,
    kubernetes: state.kubernetes,
    inputFromLine: state.inputFromLine,
    file: (path) => fileResource(path, state),
    url: (url) => (url === null ? everything : urlResource(widenGlob(url))),
    run: (argv) => {
      const nested = { ...clone(state), depth: state.depth + 1 };
      return nested.depth > maxDepth ? [everything] : runCommand(argv, nested, nested);
    },
    script: (source) => {
      if (source === null) return [everything];
      const nested = { ...clone(state), depth: state.depth + 1, out: new Set<string>() };
      walkScript(source, nested);
      return [...nested.out];
    },
  };
}

function changeDirectory(args: readonly Arg[], state: WalkState): string | undefined {
  const dir = args.find((arg) => arg === null || !arg.startsWith('-') || arg === '-');
  if (dir === undefined) return homeOf(state) ?? undefined;
  if (dir === null || dir === '-') return undefined;
  const resource = fileResource(dir, state);
  return resource.startsWith('file://') ? resource.slice('file://'.length) : undefined;
}
