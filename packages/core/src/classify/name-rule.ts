import { transient, type Verdict, verdict } from './verdict.js';

// In priority order: a timeout that surfaced as an abort is still a timeout.
const byName: ReadonlyArray<readonly [string, Verdict]> = [
  ['TimeoutError', transient('TIMEOUT', true)],
  ['ConnectionTimeoutError', transient('TIMEOUT')],
  ['MaxRetriesPerRequestError', transient('CONNECTION_REFUSED')], // ioredis offline queue
  // Unparseable arguments are the most specific input problem: check them first.
  ['AI_JSONParseError', verdict('VALIDATION', 'INVALID_JSON')],
  ['SyntaxError', verdict('VALIDATION', 'INVALID_JSON')],
  ['AI_NoSuchToolError', verdict('VALIDATION', 'NO_SUCH_TOOL')],
  ['NoSuchToolError', verdict('VALIDATION', 'NO_SUCH_TOOL')],
  ['AI_InvalidToolInputError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['AI_InvalidToolArgumentsError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['InvalidToolInputError', verdict('VALIDATION', 'INVALID_INPUT')], // @openai/agents
  ['AI_TypeValidationError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['AI_InvalidArgumentError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['ZodError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['ValidationError', verdict('VALIDATION', 'INVALID_INPUT')],
  ['AI_LoadAPIKeyError', verdict('AUTHORIZATION', 'NOT_AUTHORIZED')],
  ['AI_UnsupportedFunctionalityError', verdict('PERMANENT', 'NOT_SUPPORTED')],
  ['AI_NoSuchModelError', verdict('PERMANENT', 'NOT_FOUND')],
];

// Not the caller's abort (that one is rethrown before anything classifies it): the tool
// gave up on its own request, which may have landed — in doubt for a write.
const aborted = { ...verdict('PERMANENT', 'ABORTED'), ambiguous: true };

/** The table's answer for the error names found in a cause chain. */
export function classifyNames(names: readonly string[]): Verdict | undefined {
  for (const [name, result] of byName) {
    if (names.includes(name)) return result;
  }
  // Only an abort on the outside is the caller's: openai's APIConnectionTimeoutError wraps
  // the AbortError of its own timer, and that is a timeout (found by its message).
  return names[0] === 'AbortError' ? aborted : undefined;
}
