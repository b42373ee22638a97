import type { RecoveryRuntime } from '@recourse/core/adapter';
import { createRecentIds, type RecentIds } from './recent-ids.js';

/** The part of a step the scan reads; the same in ai@5, ai@6 and ai@7. */
export interface StepLike {
  content?: readonly unknown[] | undefined;
}

interface ToolErrorPart {
  type: 'tool-error';
  toolCallId: string;
  toolName: string;
  input?: unknown;
  error?: unknown;
}

/**
 * Invalid input and unknown tool names never reach `execute`: the SDK records a
 * `tool-error` part instead. Each such part whose call the wrapper never saw is reported
 * to the runtime once, so it counts for the repair budget and poison detection.
 */
export function createSdkFailureReporter(runtime: RecoveryRuntime, handled: RecentIds) {
  const reported = createRecentIds();
  return async (steps: readonly StepLike[] | undefined): Promise<void> => {
    for (const step of steps ?? []) {
      for (const part of step.content ?? []) {
        if (!isToolErrorPart(part)) continue;
        if (handled.has(part.toolCallId) || reported.has(part.toolCallId)) continue;
        reported.add(part.toolCallId);
        await runtime.recordFailure({
          toolName: part.toolName,
          toolCallId: part.toolCallId,
          input: part.input,
          error: part.error,
        });
      }
    }
  };
}

function isToolErrorPart(part: unknown): part is ToolErrorPart {
  if (typeof part !== 'object' || part === null) return false;
  const p = part as Partial<ToolErrorPart>;
  return (
    p.type === 'tool-error' && typeof p.toolCallId === 'string' && typeof p.toolName === 'string'
  );
}
