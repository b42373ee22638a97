import type { Classification } from '../../types.js';
import { type FailureClass, failureClasses } from '../../types.js';
import type { Call } from './call.js';

const known = new Set<unknown>(failureClasses);

/**
 * The policy's `check` of a returned value, as a failure to classify, or undefined when the
 * value does the job. A falsy verdict passes (`failed && { message }` is how checks are
 * written); a string is the failure's message; an object is a `CheckFailure`, its
 * `failureClass` one of the six or VALIDATION. A check that throws is a failure too
 * (`CHECK_THREW`): the value was not verified, so it is not passed off as good.
 */
export function checkResult(
  call: Call,
  value: unknown,
): { error: unknown; classification: Classification } | undefined {
  const check = call.tool.policy.check;
  if (!check) return undefined;
  let verdict: unknown;
  try {
    verdict = check(value, call.request.input);
  } catch (error) {
    const classified = call.run.classify(error);
    return {
      error,
      classification: {
        failureClass: 'PERMANENT',
        code: 'CHECK_THREW',
        message: classified.message,
        source: 'check',
      },
    };
  }
  if (!verdict) return undefined;
  const fields: Record<string, unknown> = typeof verdict === 'object' ? { ...verdict } : {};
  const message =
    typeof verdict === 'string'
      ? verdict
      : fields.message === undefined
        ? 'check failed'
        : fields.message;
  const classification: Classification = {
    failureClass: known.has(fields.failureClass)
      ? (fields.failureClass as FailureClass)
      : 'VALIDATION',
    code: typeof fields.code === 'string' && fields.code ? fields.code : 'CHECK_FAILED',
    message: call.run.classify(new Error(String(message))).message,
    source: 'check',
  };
  return { error: verdict, classification };
}
