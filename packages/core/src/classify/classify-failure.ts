import type { Classification } from '../types.js';
import { createClassifier } from './create-classifier.js';
import type { ClassifyHints } from './recogniser.js';

const defaultClassifier = createClassifier();

/**
 * What kind of failure `error` is, from its shape alone (status, codes, names, headers,
 * messages, through its whole cause chain). Never throws. With `sideEffects: true`,
 * failures that may have reached the server (timeouts, resets, 5xx, anything unknown)
 * are UNKNOWN_OUTCOME.
 */
export function classifyFailure(error: unknown, hints?: ClassifyHints): Classification {
  return defaultClassifier(error, hints);
}
