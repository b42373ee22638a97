export { classifyFailure } from './classify-failure.js';
export type { Classifier, ClassifierOptions } from './create-classifier.js';
export { createClassifier } from './create-classifier.js';
export { readFailureFacts } from './failure-evidence.js';
export type { FailureFacts } from './failure-facts.js';
export type { ClassifyHints, RecognisedFailure, Recogniser } from './recogniser.js';
export { redactSecrets, toSafeMessage } from './redact.js';
export type { HeaderSource } from './retry-after.js';
export { parseRetryAfterMs } from './retry-after.js';
