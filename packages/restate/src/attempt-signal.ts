/**
 * The tools bound to the Restate attempt that runs them: each call's abort signal also
 * aborts when the attempt ends (`ctx.request().attemptCompletedSignal`, aborted by the SDK
 * when the attempt's connection to the server closes). Restate then runs the invocation
 * again in a new attempt, while this one's JavaScript goes on (the SDK stops awaiting the
 * handler; it cannot stop it). recourse checks the signal before every attempt of a call
 * and hands it to the tool, so the superseded attempt sends nothing more: a write it had
 * claimed but not sent is never sent beside the new attempt's answer to it.
 */
export function bindToAttempt<T extends Record<string, unknown>>(
  toolset: T,
  attemptEnded: AbortSignal,
): T {
  const bound: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(toolset)) bound[name] = bindTool(tool, attemptEnded);
  return bound as T;
}

interface ExecuteOptions {
  abortSignal?: AbortSignal | undefined;
}

function bindTool(tool: unknown, attemptEnded: AbortSignal): unknown {
  if (typeof tool !== 'object' || tool === null) return tool;
  const execute = (tool as { execute?: unknown }).execute;
  if (typeof execute !== 'function') return tool;
  // A copy with every descriptor (recourse's wrapper marks its tools with a symbol).
  const descriptors = Object.getOwnPropertyDescriptors(tool);
  descriptors.execute = {
    value: function (this: unknown, input: unknown, options: ExecuteOptions | undefined) {
      const own = options?.abortSignal;
      const abortSignal = own ? AbortSignal.any([own, attemptEnded]) : attemptEnded;
      return execute.call(this, input, { ...options, abortSignal });
    },
    writable: true,
    enumerable: descriptors.execute?.enumerable ?? true,
    configurable: true,
  };
  return Object.create(Object.getPrototypeOf(tool), descriptors);
}
