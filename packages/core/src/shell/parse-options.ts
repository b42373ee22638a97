import type { Arg } from './shell-word.js';

export interface OptionSpec {
  /** Short options that take a value, as one string: `'HdoX'`. */
  short?: string | undefined;
  /** Long options (without `--`) that take a value. */
  long?: readonly string[] | undefined;
  /** Stop at the first positional: the rest is a command and its own arguments. */
  stopAtPositional?: boolean | undefined;
}

export interface ParsedOptions {
  /** `-x` / `--name` with its value (undefined for flags). */
  options: { name: string; value: Arg | undefined }[];
  positionals: Arg[];
  /** With `stopAtPositional`: the first positional and everything after it. */
  rest: Arg[];
}

/** A getopt-style parse: short clusters (`-sSLo file`), `--long=value`, `--`. */
export function parseOptions(args: readonly Arg[], spec: OptionSpec = {}): ParsedOptions {
  const valueShort = spec.short ?? '';
  const valueLong = new Set(spec.long ?? []);
  const parsed: ParsedOptions = { options: [], positionals: [], rest: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? null;
    if (arg === '--') {
      const remaining = args.slice(index + 1);
      if (spec.stopAtPositional) parsed.rest = [...remaining];
      else parsed.positionals.push(...remaining);
      break;
    }
    if (arg === null || !arg.startsWith('-') || arg === '-') {
      if (spec.stopAtPositional) {
        parsed.rest = args.slice(index);
        break;
      }
      parsed.positionals.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
      if (equals !== -1) parsed.options.push({ name: `--${name}`, value: arg.slice(equals + 1) });
      else if (valueLong.has(name))
        parsed.options.push({ name: `--${name}`, value: args[++index] ?? null });
      else parsed.options.push({ name: `--${name}`, value: undefined });
      continue;
    }
    for (let at = 1; at < arg.length; at++) {
      const letter = arg.charAt(at);
      if (valueShort.includes(letter)) {
        const attached = arg.slice(at + 1);
        parsed.options.push({
          name: `-${letter}`,
          value: attached !== '' ? attached : (args[++index] ?? null),
        });
        break;
      }
      parsed.options.push({ name: `-${letter}`, value: undefined });
    }
  }
  return parsed;
}

/** Every value given to any of `names`, in order. */
export function optionValues(parsed: ParsedOptions, ...names: string[]): Arg[] {
  return parsed.options.filter((o) => names.includes(o.name)).map((o) => o.value ?? null);
}

/** The last value given to any of `names`, or undefined when none was given. */
export function optionValue(parsed: ParsedOptions, ...names: string[]): Arg | undefined {
  const values = optionValues(parsed, ...names);
  return values.length === 0 ? undefined : values[values.length - 1];
}

export function hasOption(parsed: ParsedOptions, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}
