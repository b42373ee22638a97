import {
  createAdapterRuntime,
  InvalidOptionsError,
  type RecoveryOptions,
  type RecoveryRuntime,
} from '@recourse/core/adapter';
import { langchainRecognisers } from './langchain-errors.js';

/** What LangChain hands every hook about the invocation (langchain 1.x `Runtime`). */
export interface InvocationLike {
  configurable?: { thread_id?: unknown; [key: string]: unknown } | undefined;
}

/**
 * The run a recovery serves. With a `runId` it exists at once. Without one, the run is the
 * LangGraph thread: it starts at the first invocation, named by its `thread_id`, so a
 * thread resumed after an interrupt or a crash (with a recovery made anew over the same
 * ledger) is the same run and reaches the same idempotency keys.
 */
export function createRunBinding(
  options: Omit<RecoveryOptions, 'runId'> & { runId?: string | undefined },
) {
  const start = (runId: string) =>
    createAdapterRuntime({ ...options, runId }, { recognisers: langchainRecognisers });
  let runtime: RecoveryRuntime | undefined =
    options.runId === undefined ? undefined : start(options.runId);

  return {
    /** The run, once it exists. */
    get current(): RecoveryRuntime | undefined {
      return runtime;
    },
    /** The run of this invocation: started from its thread when no `runId` was given. */
    resolve(invocation: InvocationLike | undefined): RecoveryRuntime {
      const threadId = invocation?.configurable?.thread_id;
      if (runtime) {
        if (options.runId === undefined && threadId !== undefined && threadId !== runtime.runId) {
          throw new InvalidOptionsError(
            'runId',
            `this recovery is the run of thread "${runtime.runId}" and was invoked on thread "${String(threadId)}": create one recovery per run (thread), or pass a runId`,
          );
        }
        return runtime;
      }
      if (typeof threadId !== 'string' || threadId === '') {
        throw new InvalidOptionsError(
          'runId',
          'required when the agent is invoked without a thread (configurable.thread_id): the keys of a run must not change between attempts',
        );
      }
      runtime = start(threadId);
      return runtime;
    },
  };
}

export type RunBinding = ReturnType<typeof createRunBinding>;
