import { isAsyncGeneratorFunction } from './stream-tool-call.js';
import type { Escalation } from './tool-approval.js';

interface ApprovalOptions {
  toolCallId?: string | undefined;
  messages?: readonly unknown[] | undefined;
}

export type NeedsApproval = boolean | ((input: unknown, options: ApprovalOptions) => unknown);

/**
 * A copy of a wrapped tool that asks for an operator instead of refusing a blocked call
 * (`needsApproval`, read by ai@6 and by ai@7 when no `toolApproval` is passed), and that
 * turns the operator's approval into a grant just before the call runs. The tool's own
 * `needsApproval` still applies to calls that are not blocked.
 */
export function withEscalation<T>(tool: T, toolName: string, escalation: Escalation): T {
  if (typeof tool !== 'object' || tool === null) return tool;
  const execute = (tool as { execute?: unknown }).execute;
  if (typeof execute !== 'function') return tool;
  const own = (tool as { needsApproval?: NeedsApproval }).needsApproval;
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(tool);
  const grantThenRun = async (input: unknown, options: ApprovalOptions) => {
    await escalation.beforeExecute(options?.toolCallId ?? '', options?.messages);
    return execute.call(tool, input, options);
  };
  descriptors.execute = {
    // A streaming tool must stay an async generator, or the SDK stops streaming it.
    value: isAsyncGeneratorFunction(execute)
      ? async function* (input: unknown, options: ApprovalOptions) {
          yield* (await grantThenRun(input, options)) as AsyncIterable<unknown>;
        }
      : grantThenRun,
    writable: true,
    enumerable: descriptors.execute?.enumerable ?? true,
    configurable: true,
  };
  descriptors.needsApproval = {
    // Escalation first, so a blocked call is recorded as escalated whatever the own rule says.
    value: async (input: unknown, options: ApprovalOptions) =>
      (await escalation.status(toolName, options?.toolCallId ?? '', input, options?.messages)) !==
        'not-applicable' || (await ownNeedsApproval(own, input, options)),
    writable: true,
    enumerable: true,
    configurable: true,
  };
  return Object.create(Object.getPrototypeOf(tool), descriptors) as T;
}

/** The tool's own approval rule, as ai@6/7 would have applied it. */
export async function ownNeedsApproval(
  own: NeedsApproval | undefined,
  input: unknown,
  options: ApprovalOptions,
): Promise<boolean> {
  if (typeof own === 'function') return Boolean(await own(input, options));
  return own === true;
}
