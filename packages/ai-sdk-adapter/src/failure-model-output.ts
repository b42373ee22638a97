import { isToolCallFailure } from '@recourse/core/adapter';

type ToModelOutput = (options: unknown) => unknown;

/**
 * A tool's own `toModelOutput`, except for a recourse failure: that reaches the model as the
 * recovery contract in JSON, as it does for a tool without one. Without this, a formatter
 * written for successful results (`Refund ${output.id} done`) would receive the contract
 * and tell the model something false. ai@5 passes the output itself, ai@6 and ai@7
 * `{ toolCallId, input, output }`; the failure marker is a symbol on recourse's own
 * object, so the two are told apart without guessing.
 */
export function withFailurePassthrough(own: ToModelOutput, tool: unknown): ToModelOutput {
  return (options) => {
    const output =
      typeof options === 'object' && options !== null && !isToolCallFailure(options)
        ? (options as { output?: unknown }).output
        : options;
    if (isToolCallFailure(output)) return { type: 'json', value: { ...output } };
    return own.call(tool, options);
  };
}
