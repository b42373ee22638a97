/**
 * Whether an awk program may reach beyond the files it is given: `system()`, `getline`
 * from a file or command, a pipe, `print > file`. `||` is only a logical or.
 */
export function awkReachesOut(program: string): boolean {
  const text = program.replace(/\|\|/g, ' ');
  return /\bsystem\s*\(|\bgetline\b|\||\bprintf?\b[^;}\n]*>|@load|@include/.test(text);
}

// Commands that run a program or read or write a named file: `e`, `r`, `R`, `w`, `W`.
const outward = new Set(['e', 'r', 'R', 'w', 'W']);

/**
 * Whether a sed script may reach beyond the files it is given: the `e`, `r`, `R`, `w` and
 * `W` commands, or `s` with the `e` or `w` flag. Reads the script command by command; a
 * command it does not know counts as reaching out (fail closed).
 */
export function sedReachesOut(script: string): boolean {
  let at = 0;
  const skip = (pattern: RegExp) => {
    while (at < script.length && pattern.test(script.charAt(at))) at++;
  };
  /** Past a `c…c` delimited part; false when it does not end. */
  const delimited = (delimiter: string): boolean => {
    for (; at < script.length; at++) {
      const char = script.charAt(at);
      if (char === '\\') at++;
      else if (char === delimiter) {
        at++;
        return true;
      }
    }
    return false;
  };
  /** Past one address (`3`, `$`, `/re/I`, `\cREc`); false when a regex does not end. */
  const address = (): boolean => {
    const char = script.charAt(at);
    if (/[0-9$]/.test(char)) {
      skip(/[0-9$~+]/);
      return true;
    }
    if (char !== '/' && char !== '\\') return true;
    at += char === '/' ? 1 : 2;
    if (!delimited(char === '/' ? '/' : script.charAt(at - 1))) return false;
    skip(/[IM]/);
    return true;
  };
  while (at < script.length) {
    skip(/[\s;{}]/);
    if (at >= script.length) break;
    if (!address()) return true;
    skip(/\s/);
    if (script.charAt(at) === ',') {
      at++;
      skip(/\s/);
      if (!address()) return true;
    }
    skip(/[\s!]/);
    const command = script.charAt(at++);
    if (command === '' || command === '}' || command === '{') continue;
    if (outward.has(command)) return true;
    if (command === 's' || command === 'y') {
      const delimiter = script.charAt(at++);
      if (!delimited(delimiter) || !delimited(delimiter)) return true;
      const flags = /^[^;\n}]*/.exec(script.slice(at))?.[0] ?? '';
      if (command === 's' && /[ew]/.test(flags)) return true;
      at += flags.length;
    } else if (':btTv'.includes(command)) {
      skip(/[^;\n]/); // a label or version
    } else if ('aic#'.includes(command)) {
      // Text or a comment to the end of the line; `a\` text goes on while lines end in `\`.
      do skip(/[^\n]/);
      while (script.charAt(at - 1) === '\\' && at++ < script.length);
    } else if (!'=dDgGhHlnNpPqQxzF'.includes(command)) {
      return true;
    }
  }
  return false;
}
