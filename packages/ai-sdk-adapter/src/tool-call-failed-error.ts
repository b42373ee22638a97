import {
  contractText,
  hasMarker,
  RecourseError,
  type RecoveryContract,
} from '@recourse/core/adapter';

const marker = Symbol.for('recourse.error.tool-call-failed');

/**
 * What a wrapped tool throws when its call ends in failure. The AI SDK turns a thrown
 * error into the tool result the model reads: ai@7 uses `toString()`, ai@5/6 use
 * `message`, so both are the JSON recovery contract and nothing else (no stack, no
 * raw error text). The original error stays on `cause` for the application.
 */
export class ToolCallFailedError extends RecourseError {
  readonly [marker] = true;
  readonly contract: RecoveryContract;

  constructor(contract: RecoveryContract, options?: { cause?: unknown }) {
    super('TOOL_CALL_FAILED', contractText(contract), options);
    this.name = 'ToolCallFailedError';
    this.contract = contract;
  }

  override toString(): string {
    return this.message;
  }

  static override isInstance(value: unknown): value is ToolCallFailedError {
    return hasMarker(value, marker);
  }
}
