import { InvalidOptionsError } from '../../errors.js';
import { closestKey } from './closest-key.js';

/** A check of one option's value; throws `InvalidOptionsError` naming `field`. */
export type Check = (value: unknown, field: string) => void;
export type Shape = Record<string, Check>;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const fn: Check = (value, field) => {
  if (typeof value !== 'function') throw new InvalidOptionsError(field, 'must be a function');
};
export const bool: Check = (value, field) => {
  if (typeof value !== 'boolean') throw new InvalidOptionsError(field, 'must be a boolean');
};
export const text: Check = (value, field) => {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidOptionsError(field, 'must be a non-empty string');
  }
};
export const count =
  (min: number): Check =>
  (value, field) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      throw new InvalidOptionsError(field, `must be an integer >= ${min}, got ${String(value)}`);
    }
  };
export const duration: Check = (value, field) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionsError(
      field,
      `must be a number of milliseconds > 0, got ${String(value)}`,
    );
  }
};
export const oneOf =
  (...values: string[]): Check =>
  (value, field) => {
    if (!values.includes(value as string)) {
      throw new InvalidOptionsError(field, `must be ${values.map((v) => `'${v}'`).join(' or ')}`);
    }
  };
export const strings: Check = (value, field) => {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new InvalidOptionsError(field, 'must be an array of strings');
  }
};
export const methods =
  (what: string, ...names: string[]): Check =>
  (value, field) => {
    const missing = isObject(value)
      ? names.filter((name) => typeof value[name] !== 'function')
      : names;
    if (missing.length > 0) {
      throw new InvalidOptionsError(field, `must be ${what} (missing ${missing.join(', ')})`);
    }
  };

/** Every key known, every value of the right kind; unknown keys name the one meant. */
export function checkShape(value: unknown, field: string, shape: Shape): void {
  if (!isObject(value)) throw new InvalidOptionsError(field, 'must be an object');
  for (const [key, item] of Object.entries(value)) {
    const check = shape[key];
    const path = field === '' ? key : `${field}.${key}`;
    if (!check) {
      const meant = closestKey(key, Object.keys(shape));
      throw new InvalidOptionsError(
        path,
        `unknown option${meant ? `; did you mean "${meant}"?` : ''}`,
        meant,
      );
    }
    if (item !== undefined) check(item, path);
  }
}

export const optionChecks = { fn, bool, text, count, duration, oneOf } as const;
