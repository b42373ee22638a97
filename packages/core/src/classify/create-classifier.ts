import type { Clock } from '../clock.js';
import { type Classification, type FailureClass, failureClasses } from '../types.js';
import { type BuiltinRecogniser, builtinRecognisers } from './builtin-recognisers.js';
import { distinctMessages } from './compose-message.js';
import { type FailureEvidence, readFailureEvidence } from './failure-evidence.js';
import type { FailureFacts } from './failure-facts.js';
import {
  type ClassifyHints,
  mayWriteOf,
  type RecognisedFailure,
  type Recogniser,
} from './recogniser.js';
import { toSafeMessage } from './redact.js';
import { parseRetryAfterMs } from './retry-after.js';
import { readRetryHintMs } from './retry-hints.js';

export interface ClassifierOptions {
  /** Consulted in order before the built-in rules; the first answer wins. */
  recognisers?: readonly Recogniser[] | undefined;
  /** For Retry-After dates and epoch resets. Defaults to the system clock. */
  clock?: Pick<Clock, 'now'> | undefined;
  /** Bound of `Classification.message`. Default 500. */
  maxMessageLength?: number | undefined;
}

export type Classifier = (error: unknown, hints?: ClassifyHints) => Classification;

function isFailureClass(value: unknown): value is FailureClass {
  return typeof value === 'string' && (failureClasses as readonly string[]).includes(value);
}

function isWait(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function composeMessage(error: unknown, facts: FailureFacts): string {
  if (facts.messages.length > 0) return distinctMessages(facts.messages).slice(0, 3).join(': ');
  if (typeof error === 'number' || typeof error === 'boolean' || typeof error === 'bigint') {
    return String(error);
  }
  return facts.names[0] ?? facts.codes[0] ?? 'Unknown error';
}

function askUser(recogniser: Recogniser, facts: FailureFacts, error: unknown) {
  try {
    const answer: unknown = recogniser.recognise(facts, error);
    const failureClass = (answer as RecognisedFailure | undefined)?.failureClass;
    return isFailureClass(failureClass) ? (answer as RecognisedFailure) : undefined;
  } catch {
    return undefined; // a broken user rule must not break classification
  }
}

function askBuiltin(recogniser: BuiltinRecogniser, evidence: FailureEvidence) {
  try {
    return recogniser.recognise(evidence);
  } catch {
    return undefined; // a hostile value that defeats one rule leaves the others to answer
  }
}

/**
 * A classifier with the user's recognisers in front of the built-in rules. Never throws:
 * every answer is a `Classification` with a redacted, bounded message.
 */
export function createClassifier(options: ClassifierOptions = {}): Classifier {
  const recognisers = [...(options.recognisers ?? [])];
  const now = () => (options.clock ? options.clock.now() : Date.now());
  const maxMessageLength = options.maxMessageLength ?? 500;

  const classify: Classifier = (error, hints) => {
    const evidence = readFailureEvidence(error);
    const { facts } = evidence;
    const status = facts.statuses[0];
    const base = {
      message: toSafeMessage(composeMessage(error, facts), maxMessageLength),
      ...(status === undefined ? {} : { status }),
      ...(facts.field === undefined ? {} : { field: facts.field }),
    };
    const retryAfterMs = (failureClass: FailureClass) => {
      if (failureClass !== 'TRANSIENT') return {};
      const wait = parseRetryAfterMs(facts.headers, now()) ?? readRetryHintMs(evidence);
      return wait === undefined ? {} : { retryAfterMs: wait };
    };

    for (const recogniser of recognisers) {
      const answer = askUser(recogniser, facts, error);
      if (!answer) continue;
      return {
        ...base,
        ...retryAfterMs(answer.failureClass),
        failureClass: answer.failureClass,
        code: typeof answer.code === 'string' ? answer.code : recogniser.name,
        source: recogniser.name,
        ...(typeof answer.message === 'string'
          ? { message: toSafeMessage(answer.message, maxMessageLength) }
          : {}),
        ...(typeof answer.status === 'number' ? { status: answer.status } : {}),
        ...(isWait(answer.retryAfterMs) ? { retryAfterMs: answer.retryAfterMs } : {}),
        ...(typeof answer.field === 'string' ? { field: answer.field } : {}),
      };
    }

    for (const recogniser of builtinRecognisers) {
      const verdict = askBuiltin(recogniser, evidence);
      if (!verdict) continue;
      const failureClass =
        verdict.ambiguous && mayWriteOf(hints) ? 'UNKNOWN_OUTCOME' : verdict.failureClass;
      return {
        ...base,
        ...retryAfterMs(failureClass),
        failureClass,
        code: verdict.code,
        source: recogniser.name,
      };
    }
    return {
      ...base,
      failureClass: mayWriteOf(hints) ? 'UNKNOWN_OUTCOME' : 'PERMANENT',
      code: 'UNKNOWN',
      source: 'builtin:unknown',
    };
  };

  return (error, hints) => {
    try {
      return classify(error, hints);
    } catch {
      // Last line of defence: the readers are guarded, but "never throws" is the contract.
      return {
        failureClass: mayWriteOf(hints) ? 'UNKNOWN_OUTCOME' : 'PERMANENT',
        code: 'UNKNOWN',
        message: 'Unclassifiable error',
        source: 'builtin:unknown',
      };
    }
  };
}
