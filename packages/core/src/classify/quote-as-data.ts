import { compileInstructionPatterns } from './quote-as-data-patterns.js';
import { redactSecrets } from './redact.js';

/** Characters of error text kept inside the quotes. */
export const maxQuotedLength = 2000;

/** What replaces a phrase that addresses the model. */
export const removedInstruction = '[instruction-like text removed]';

const OPEN = '«';
const CLOSE = '»';

// Invisible and direction-changing characters: zero-width spaces and joiners, bidi
// embeddings, overrides and isolates, the soft hyphen, variation selectors, Unicode tag
// characters (invisible ASCII), Hangul fillers, and C0/C1 controls other than line breaks
// and tabs. They can hide or reorder what a model reads, so they go.
const invisible = new RegExp(
  // Written as a string: the class holds combining characters (U+034F, variation
  // selectors) on purpose, which a regex literal's lint would read as a mistake.
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u0084\\u0086-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160' +
    '\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0' +
    '\\uFFF9-\\uFFFB]|\\uDB40[\\uDC00-\\uDDEF]',
  'g',
);

// Right-to-left embeddings, overrides and isolates.
const rightToLeft = /[\u202B\u202E\u2067]/;

// Line and paragraph breaks of every kind: the quote is one line, so no line of it can
// pose as a new message.
const lineBreaks = /\r\n?|[\n\u0085\u2028\u2029]/g;

// The delimiters themselves and their look-alikes become plain double quotes, so the
// text cannot close the quote early or open a second one.
const delimiters = /[«»‹›≪≫《》〈〉⟨⟩⟪⟫❮❯❰❱⸨⸩]/g;

// Markdown fences: a fence inside the data could pose as the end of a block.
const fences = /`{3,}|~{3,}/g;

// Latin look-alikes that Unicode normalisation keeps apart (Unicode's confusables for
// the letters that spell English instructions), one character for one character.
const confusables: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ɑ: 'a',
  ı: 'i',
  ȷ: 'j',
  ɩ: 'i',
  ʏ: 'y',
  ɪ: 'i',
  ʀ: 'r',
  ᴏ: 'o',
  ᴜ: 'u',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  У: 'Y',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ԁ: 'D',
  Ԍ: 'G',
  Ԛ: 'Q',
  Ԝ: 'W',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  η: 'n',
  ω: 'w',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  օ: 'o',
  ս: 'u',
  ց: 'g',
  ո: 'n',
  '‘': "'",
  '’': "'",
  ʼ: "'",
  '′': "'",
  '“': '"',
  '”': '"',
};

const foldCache = new Map<number, readonly [string, string]>();

// A code point's skeleton: its letters without accents (native), and that with Latin
// look-alikes folded to Latin (latin). Both have the same length; a combining mark
// alone has an empty skeleton.
function foldCodePoint(codePoint: number): readonly [string, string] {
  const cached = foldCache.get(codePoint);
  if (cached) return cached;
  const character = String.fromCodePoint(codePoint);
  const native = character.normalize('NFKD').replace(/\p{M}/gu, '');
  let latin = '';
  for (const unit of native) latin += unit.length === 1 ? (confusables[unit] ?? unit) : unit;
  const folded = [native, latin.length === native.length ? latin : native] as const;
  if (foldCache.size < 4096) foldCache.set(codePoint, folded);
  return folded;
}

const foldText = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '');

const patterns = compileInstructionPatterns(foldText);

interface Skeleton {
  latin: string;
  native: string;
  /** For each skeleton character, where its source character starts and ends. */
  starts: number[];
  ends: number[];
}

function skeletonOf(text: string): Skeleton {
  const skeleton: Skeleton = { latin: '', native: '', starts: [], ends: [] };
  let index = 0;
  for (const character of text) {
    const codePoint = character.codePointAt(0) as number;
    const [native, latin] = codePoint < 0x80 ? [character, character] : foldCodePoint(codePoint);
    for (let unit = 0; unit < native.length; unit += 1) {
      skeleton.starts.push(index);
      skeleton.ends.push(index + character.length);
    }
    skeleton.native += native;
    skeleton.latin += latin;
    index += character.length;
  }
  return skeleton;
}

// Ranges of `text` (start, end) that the patterns find in either skeleton, merged. Text
// that held a right-to-left override may have been written backwards to display the
// right way round, so its skeleton is also read reversed.
function instructionRanges(text: string, readReversed: boolean): Array<[number, number]> {
  const skeleton = skeletonOf(text);
  const ranges: Array<[number, number]> = [];
  const scan = (pattern: RegExp, folded: string, reversed: boolean) => {
    const last = folded.length - 1;
    for (const match of folded.matchAll(pattern)) {
      if (match[0].length === 0) continue;
      let first = match.index;
      let final = first + match[0].length - 1;
      if (reversed) [first, final] = [last - final, last - first];
      ranges.push([skeleton.starts[first] as number, skeleton.ends[final] as number]);
    }
  };
  scan(patterns.latin, skeleton.latin, false);
  scan(patterns.latinCased, skeleton.latin, false);
  scan(patterns.native, skeleton.native, false);
  // Reversed unit by unit, so that index i of the reversed skeleton is index last - i.
  if (readReversed) {
    scan(patterns.latin, skeleton.latin.split('').reverse().join(''), true);
    scan(patterns.native, skeleton.native.split('').reverse().join(''), true);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const range of ranges) {
    const previous = merged.at(-1);
    if (previous && range[0] <= previous[1]) previous[1] = Math.max(previous[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  let end = length - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // do not split a surrogate pair
  return `${text.slice(0, end)}…`;
}

/**
 * Error text as quoted data, for the `error_detail` field of a recovery contract.
 *
 * The text is cut to a bound, normalised (NFKC: full-width and other compatibility forms
 * become plain letters), stripped of invisible and direction-changing characters, and
 * redacted again (normalising can turn a disguised key into a plain one). Phrases that
 * address the model (role markers, "ignore your instructions", "call the X tool", in
 * several languages and through Latin look-alikes) are replaced with
 * `[instruction-like text removed]`; line breaks become spaces; the delimiters « » and
 * their look-alikes become `"`. The result is `«…»`, at most `maxQuotedLength + 2`
 * characters, with no « or » inside.
 */
export function quoteAsData(text: string): string {
  // NFKC can lengthen text (up to 18 times for one character), so cut before and after.
  const raw = cut(String(text), maxQuotedLength * 4);
  const bounded = raw.normalize('NFKC').replace(invisible, '');
  const normalised = redactSecrets(cut(bounded, maxQuotedLength * 4));
  let neutralised = '';
  let from = 0;
  for (const [start, end] of instructionRanges(normalised, rightToLeft.test(raw))) {
    neutralised += normalised.slice(from, start) + removedInstruction;
    from = end;
  }
  neutralised += normalised.slice(from);
  const cleaned = neutralised
    .replace(lineBreaks, ' ')
    .replace(fences, (fence) => fence.charAt(0))
    .replace(delimiters, '"');
  return `${OPEN}${cut(cleaned, maxQuotedLength)}${CLOSE}`;
}
