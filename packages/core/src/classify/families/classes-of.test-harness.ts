import { classifyFailure } from '../classify-failure.js';

/** [class without hint, class with sideEffects: true, code] of one error. */
export function classesOf(error: unknown): [string, string, string] {
  const plain = classifyFailure(error);
  const written = classifyFailure(error, { sideEffects: true });
  return [plain.failureClass, written.failureClass, plain.code];
}
