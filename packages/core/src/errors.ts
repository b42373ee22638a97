const baseMarker = Symbol.for('recourse.error');

export type RecourseErrorCode =
  | 'INVALID_OPTIONS'
  | 'LEASE_LOST'
  | 'LEDGER_UNAVAILABLE'
  | 'TIMEOUT'
  | 'TOOL_CALL_FAILED'
  | 'NO_SUCH_TOOL'
  | 'INVALID_TOOL_INPUT'
  | 'MCP_TOOL_ERROR'
  | 'OUTSIDE_CALL'
  | 'SHELL_PARSER_UNAVAILABLE';

/**
 * `isInstance` for one class, by its own `Symbol.for` marker (survives duplicate copies of
 * a package, where `instanceof` does not). Adapters use it for their own marked objects.
 */
export function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && marker in value;
}

/**
 * Base of every error recourse throws. Each class carries its own `Symbol.for` marker,
 * so `isInstance` survives two copies of the package in node_modules (where `instanceof`
 * does not) and a subclass check never accepts a sibling.
 */
export class RecourseError extends Error {
  readonly [baseMarker] = true;
  readonly code: RecourseErrorCode;

  constructor(code: RecourseErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RecourseError';
    this.code = code;
  }

  static isInstance(value: unknown): value is RecourseError {
    return hasMarker(value, baseMarker);
  }
}

const invalidOptionsMarker = Symbol.for('recourse.error.invalid-options');

/** Options given to a constructor or factory are wrong. The message names the field. */
export class InvalidOptionsError extends RecourseError {
  readonly [invalidOptionsMarker] = true;
  /** The path of the bad option: `policies.refund_payment.sideEffect`. */
  readonly field: string;
  /** For an unknown key: the known key it most likely meant. */
  readonly suggestion: string | undefined;

  constructor(field: string, problem: string, suggestion?: string | undefined) {
    super('INVALID_OPTIONS', `Invalid option \`${field}\`: ${problem}`);
    this.name = 'InvalidOptionsError';
    this.field = field;
    this.suggestion = suggestion;
  }

  static override isInstance(value: unknown): value is InvalidOptionsError {
    return hasMarker(value, invalidOptionsMarker);
  }
}

const leaseLostMarker = Symbol.for('recourse.error.lease-lost');

/** A claimer whose lease expired tried to complete a key that another worker now owns. */
export class LeaseLostError extends RecourseError {
  readonly [leaseLostMarker] = true;
  readonly key: string;

  constructor(key: string) {
    super('LEASE_LOST', `The claim on ${key} was taken over by another worker`);
    this.name = 'LeaseLostError';
    this.key = key;
  }

  static override isInstance(value: unknown): value is LeaseLostError {
    return hasMarker(value, leaseLostMarker);
  }
}

const ledgerUnavailableMarker = Symbol.for('recourse.error.ledger-unavailable');

/**
 * The ledger could not be reached. Classified as TRANSIENT; never executes without a claim.
 * The message names the store and, when known, where it is (`target`: a SQLite path, a
 * PostgreSQL or Redis host:port, never credentials); `cause` is the store's own error.
 */
export class LedgerUnavailableError extends RecourseError {
  readonly [ledgerUnavailableMarker] = true;
  readonly store: string;
  /** The SQLite file, or the host:port of the server. */
  readonly target: string | undefined;

  constructor(
    store: string,
    message: string,
    options?: { cause?: unknown; target?: string | undefined },
  ) {
    const where = options?.target === undefined ? '' : ` (${options.target})`;
    super(
      'LEDGER_UNAVAILABLE',
      `${store} ledger unavailable: ${message}${where}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'LedgerUnavailableError';
    this.store = store;
    this.target = options?.target;
  }

  static override isInstance(value: unknown): value is LedgerUnavailableError {
    return hasMarker(value, ledgerUnavailableMarker);
  }
}

const attemptTimeoutMarker = Symbol.for('recourse.error.attempt-timeout');

/**
 * An attempt ran past its `timeoutMs`: its signal was aborted with this error and it is
 * no longer awaited. Named `TimeoutError` like the platform's, so it classifies as one.
 */
export class AttemptTimeoutError extends RecourseError {
  readonly [attemptTimeoutMarker] = true;
  readonly timeoutMs: number;

  constructor(toolName: string, timeoutMs: number) {
    super('TIMEOUT', `${toolName} did not settle within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }

  static override isInstance(value: unknown): value is AttemptTimeoutError {
    return hasMarker(value, attemptTimeoutMarker);
  }
}

const shellParserUnavailableMarker = Symbol.for('recourse.error.shell-parser-unavailable');

/**
 * The shell parser (`mvdan-sh`) could not be loaded, so `shellResources` cannot tell what a
 * command line reaches. A resource function that throws it reaches everything (fail closed).
 */
export class ShellParserUnavailableError extends RecourseError {
  readonly [shellParserUnavailableMarker] = true;
  /** What to do about it, one sentence. */
  readonly fix: string;

  constructor(fix: string, options?: { cause?: unknown }) {
    super(
      'SHELL_PARSER_UNAVAILABLE',
      `The shell parser (mvdan-sh) could not be loaded: every shell command reaches everything. ${fix}`,
      options,
    );
    this.name = 'ShellParserUnavailableError';
    this.fix = fix;
  }

  static override isInstance(value: unknown): value is ShellParserUnavailableError {
    return hasMarker(value, shellParserUnavailableMarker);
  }
}
