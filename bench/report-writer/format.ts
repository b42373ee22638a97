/** Thousands separators, as everywhere in the report. */
export const n = (value: number) => value.toLocaleString('en-US');

/** `part` of `whole` as a percentage with one decimal. */
export const percent = (part: number, whole: number) =>
  `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
