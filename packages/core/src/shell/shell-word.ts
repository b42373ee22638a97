import { nodeType, type ShellNode, type Stmt, type Word, walkNodes } from './shell-syntax.js';

/** A shell word after expansion: its text, or null when it is not known at all. */
export type Arg = string | null;

/**
 * Stands in for the value of an expansion we cannot know (`$TOKEN`, `$(…)`). Keeping the
 * rest of the word lets `curl -H "token $GH" URL` and `bash -c "… $GH …"` still be read;
 * any resource built from a marked word is widened to `*` at the end.
 */
export const unknownValue = '\uE000';

/** The marker as it looks after URL percent-encoding. */
const encodedUnknownValue = '%EE%80%80';

export function isUnknownResource(resource: string): boolean {
  return resource.includes(unknownValue) || resource.toUpperCase().includes(encodedUnknownValue);
}

/** Variables whose values are known statically; null marks a variable set at run time. */
export type Variables = ReadonlyMap<string, string | null>;

function removeEscapes(text: string, quoted: boolean): string {
  // Outside quotes a backslash escapes any character; inside double quotes only $ ` " \.
  return quoted
    ? text.replace(/\\([$`"\\])/g, '$1').replace(/\\\n/g, '')
    : text.replace(/\\(.)/gs, '$1');
}

function partValue(part: ShellNode, variables: Variables, quoted: boolean): Arg {
  switch (nodeType(part)) {
    case 'Lit':
      return removeEscapes(String(part.Value), quoted);
    case 'SglQuoted':
      // $'…' has escapes we do not interpret.
      return part.Dollar === true && String(part.Value).includes('\\')
        ? unknownValue
        : String(part.Value);
    case 'DblQuoted': {
      let text = '';
      for (const inner of part.Parts as ShellNode[]) {
        text += partValue(inner, variables, true) ?? unknownValue;
      }
      return text;
    }
    case 'ParamExp':
      return parameterValue(part, variables);
    default:
      return unknownValue;
  }
}

function parameterValue(part: ShellNode, variables: Variables): Arg {
  const simple =
    part.Excl !== true &&
    part.Length !== true &&
    part.Width !== true &&
    part.Index == null &&
    part.Slice == null &&
    part.Repl == null &&
    part.Exp == null &&
    !part.Names;
  const name = (part.Param as { Value?: string } | null)?.Value;
  if (!simple || name === undefined) return unknownValue;
  return variables.get(name) ?? unknownValue;
}

/** The text of a word; expansions we cannot know become `unknownValue`. */
export function wordValue(word: Word, variables: Variables): Arg {
  let text = '';
  for (const part of word.Parts) {
    text += partValue(part, variables, false) ?? unknownValue;
  }
  return expandTilde(word, text, variables);
}

/**
 * `~` and `~/…` expand to `$HOME` as the shell has it when it reads the word (a `HOME=…`
 * prefix of the same command does not count yet). Left as written when the caller did not
 * say what HOME is (the path then reads `~` as the home it was given); `~user` stays too.
 * A `~` that is quoted or escaped does not expand.
 */
function expandTilde(word: Word, text: string, variables: Variables): string {
  const first = word.Parts[0];
  const raw = first !== undefined && nodeType(first) === 'Lit' ? String(first.Value) : '';
  // A quoted or escaped `~` is a name like any other: `'~/x'` is `./~/x`.
  if (text.startsWith('~') && !raw.startsWith('~')) return `./${text}`;
  const bare = raw === '~' && word.Parts.length === 1;
  if ((!bare && !raw.startsWith('~/')) || !variables.has('HOME')) return text;
  return (variables.get('HOME') ?? unknownValue) + text.slice(1);
}

/** The statement lists of every `$(…)`, backtick and `<(…)` inside a node. */
export function substitutions(node: unknown): Stmt[][] {
  const found: Stmt[][] = [];
  walkNodes(node, (child) => {
    const type = nodeType(child);
    if (type === 'CmdSubst' || type === 'ProcSubst') {
      found.push([...(child.Stmts as Stmt[])]);
      return false;
    }
    return true;
  });
  return found;
}
