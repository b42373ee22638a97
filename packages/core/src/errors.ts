const marker = Symbol.for('recourse.error');

export type RecourseErrorCode =
  | 'INVALID_OPTIONS'
  | 'IDEMPOTENCY_CONFLICT'
  | 'LEASE_LOST'
  | 'LEDGER_UNAVAILABLE'
  | 'TOOL_CALL_FAILED'
  | 'BLOCKED';

/**
 * Base of every error recourse throws. `isInstance` survives two copies of the package
 * in node_modules, where `instanceof` does not.
 */
export class RecourseError extends Error {
  readonly [marker] = true;
  readonly code: RecourseErrorCode;

  constructor(code: RecourseErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecourseError';
    this.code = code;
  }

  static isInstance(value: unknown): value is RecourseError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}

/** Options given to a constructor or factory are wrong. The message names the field. */
export class InvalidOptionsError extends RecourseError {
  readonly field: string;
  constructor(field: string, problem: string) {
    super('INVALID_OPTIONS', `Invalid option \`${field}\`: ${problem}`);
    this.name = 'InvalidOptionsError';
    this.field = field;
  }
}

/** The same idempotency key was used for a different payload (IETF draft: 422). */
export class IdempotencyConflictError extends RecourseError {
  readonly key: string;
  constructor(key: string) {
    super(
      'IDEMPOTENCY_CONFLICT',
      `Idempotency key ${key} was already used with a different payload`,
    );
    this.name = 'IdempotencyConflictError';
    this.key = key;
  }
}

/** A claimer whose lease expired tried to complete a key that another worker now owns. */
export class LeaseLostError extends RecourseError {
  readonly key: string;
  constructor(key: string) {
    super('LEASE_LOST', `The claim on ${key} was taken over by another worker`);
    this.name = 'LeaseLostError';
    this.key = key;
  }
}

/** The ledger could not be reached. Classified as TRANSIENT; never executes without a claim. */
export class LedgerUnavailableError extends RecourseError {
  readonly store: string;
  constructor(store: string, message: string, options?: { cause?: unknown }) {
    super('LEDGER_UNAVAILABLE', `${store} ledger unavailable: ${message}`, options);
    this.name = 'LedgerUnavailableError';
    this.store = store;
  }
}
