import { InvalidOptionsError } from '../../errors.js';
import { validateBackoff } from '../../policy/backoff.js';
import { resolveRetryBudgetOptions } from '../../policy/retry-budget.js';
import {
  bool,
  checkShape,
  count,
  duration,
  fn,
  isObject,
  methods,
  oneOf,
  type Shape,
  strings,
  text,
} from './option-checks.js';
import type { RecoveryOptions } from './recovery-options.js';

const ledgerMethods = [
  'claim',
  'complete',
  'release',
  'markUncertain',
  'get',
  'addRepair',
  'getRepairs',
  'addFact',
  'listFacts',
];

export const policyShape: Shape = {
  sideEffects: bool,
  idempotent: bool,
  reconcile: fn,
  fallback: fn,
  compensate: (value, field) => {
    if (typeof value === 'function') return;
    if (!isObject(value)) {
      throw new InvalidOptionsError(
        field,
        'must be a function or { undo, idempotent?, reconcile? }',
      );
    }
    checkShape(value, field, { undo: fn, idempotent: bool, reconcile: fn });
    if (typeof value.undo !== 'function')
      throw new InvalidOptionsError(`${field}.undo`, 'must be a function');
  },
  check: fn,
  resource: fn,
  capability: text,
  key: fn,
  maxAttempts: count(1),
  timeoutMs: duration,
  dependency: text,
  missingEvidence: text,
  verifyWith: (value, field) =>
    typeof value === 'string' ? text(value, field) : strings(value, field),
};

const retryShape: Shape = {
  maxAttempts: count(1),
  timeoutMs: duration,
  baseDelayMs: () => {},
  factor: () => {},
  maxDelayMs: () => {},
  jitter: () => {},
  maxElapsedMs: duration,
  budget: (value, field) => {
    if (value === false) return;
    if (isObject(value) && typeof value.canRetry === 'function') {
      methods('a RetryBudget', 'canRetry', 'recordFailure', 'recordSuccess')(value, field);
      return;
    }
    checkShape(value, field, {
      maxTokens: () => {},
      tokenRatio: () => {},
      tripAfter: () => {},
      probeIntervalMs: () => {},
    });
    resolveRetryBudgetOptions(value as Record<string, number>, `${field}.`);
  },
};

const coreShape: Shape = {
  runId: (value, field) => {
    text(value, field);
    if ((value as string).length > 128) {
      throw new InvalidOptionsError(field, 'must be at most 128 characters');
    }
  },
  ledger: methods('a Ledger', ...ledgerMethods),
  policies: (value, field) => {
    if (!isObject(value))
      throw new InvalidOptionsError(field, 'must be an object keyed by tool name');
    for (const [tool, policy] of Object.entries(value)) validatePolicy(policy, `${field}.${tool}`);
  },
  defaultPolicy: (value, field) => validatePolicy(value, field),
  retry: (value, field) => {
    checkShape(value, field, retryShape);
    validateBackoff(value as Record<string, number>, field);
  },
  repairBudget: count(0),
  scope: (value, field) => checkShape(value, field, { allow: strings, deny: strings }),
  onDenial: oneOf('stop', 'continue'),
  onPoison: oneOf('stop', 'replan'),
  parallelWrites: bool,
  autoCompensate: bool,
  nextPossibleAction: text,
  onEvent: fn,
  recognisers: (value, field) => {
    if (!Array.isArray(value)) throw new InvalidOptionsError(field, 'must be an array');
    for (const [index, item] of value.entries()) {
      methods('a Recogniser', 'recognise')(item, `${field}[${index}]`);
    }
  },
  inFlightWaitMs: count(0),
  deadlineMs: duration,
  ledgerTimeoutMs: duration,
  tracer: (value, field) => {
    if (value !== false) methods('an OpenTelemetry Tracer (or false)', 'startSpan')(value, field);
  },
  clock: methods('a Clock', 'now', 'sleep'),
  random: fn,
  engine: (value, field) => checkShape(value, field, { sleep: fn }),
};

/** Checks one policy like the options' own; `field` names it in errors. */
export function validatePolicy(value: unknown, field: string): void {
  checkShape(value, field, policyShape);
  const policy = value as Record<string, unknown>;
  if (policy.idempotent === true && policy.sideEffects === false) {
    throw new InvalidOptionsError(
      `${field}.idempotent`,
      'only means something for a write: a tool with `sideEffects: false` is never replayed',
    );
  }
}

/**
 * Fails at construction with an `InvalidOptionsError` naming the field: a value of the
 * wrong kind, or a key no option has (a typo in plain JavaScript would otherwise turn a
 * write into a read). `extra` adds an adapter's own options.
 */
export function validateRecoveryOptions(
  options: unknown,
  extra: Shape = {},
): asserts options is RecoveryOptions {
  if (!isObject(options)) {
    throw new InvalidOptionsError('options', 'expected an object with at least `runId`');
  }
  if (options.runId === undefined)
    throw new InvalidOptionsError('runId', 'must be a non-empty string');
  checkShape(options, '', { ...coreShape, ...extra });
}

export { optionChecks } from './option-checks.js';
