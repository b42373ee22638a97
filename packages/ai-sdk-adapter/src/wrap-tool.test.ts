import { createRecovery, isToolCallFailure, ToolCallFailedError } from '@recourse/ai-sdk';
import { callContext } from '@recourse/core';
import { describe, expect, it } from 'vitest';

describe('recovery.tools', () => {
  it('copies each tool with its prototype and non-enumerable fields, replacing only execute', async () => {
    const proto = { kind: 'function-tool' };
    const original = Object.create(proto, {
      description: { value: 'Refund', enumerable: true },
      hidden: { value: 'kept', enumerable: false },
      execute: {
        value: async (input: { id: string }) => `done ${input.id} ${callContext().attempt}`,
        enumerable: true,
        writable: true,
      },
    });
    const clientOnly = { description: 'no execute' };
    const recovery = createRecovery({ runId: 'run-w1' });

    const wrapped = recovery.tools({ refund: original, ask: clientOnly });

    expect(Object.keys(wrapped)).toEqual(['refund', 'ask']);
    expect(wrapped.ask).toBe(clientOnly);
    expect(wrapped.refund).not.toBe(original);
    expect(Object.getPrototypeOf(wrapped.refund)).toBe(proto);
    expect(wrapped.refund.hidden).toBe('kept');
    expect(wrapped.refund.description).toBe('Refund');
    expect(wrapped.refund.execute).not.toBe(original.execute);
    expect(await wrapped.refund.execute({ id: 'p-1' }, { toolCallId: 'c1', messages: [] })).toBe(
      'done p-1 1',
    );
  });
});

type StreamingExecute = (input: unknown, options: unknown) => AsyncIterable<unknown>;

async function collect(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of iterable) values.push(value);
  return values;
}

function unavailable(): Error {
  return Object.assign(new Error('Service Unavailable'), { status: 503 });
}

describe('recovery.tools with a streaming tool (async *execute)', () => {
  it('stays a streaming tool and yields what the tool yields, as it yields it', async () => {
    const recovery = createRecovery({
      runId: 'run-s1',
      policies: { progress: { sideEffects: false } },
    });
    const seen: string[] = [];
    const { progress } = recovery.tools({
      progress: {
        execute: async function* (input: { id: string }) {
          yield `started ${input.id} ${callContext().toolCallId}`;
          seen.push('after first');
          yield 'finished';
        },
      },
    });
    const stream = (progress.execute as unknown as StreamingExecute)(
      { id: 'p-1' },
      { toolCallId: 'c1' },
    );
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: 'started p-1 c1' });
    expect(await iterator.next()).toEqual({ done: false, value: 'finished' });
    expect(seen).toEqual(['after first']);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('a transient failure mid-stream is retried; the values of both attempts reach the SDK, the last is the result', async () => {
    let attempts = 0;
    const recovery = createRecovery({
      runId: 'run-s2',
      retry: { baseDelayMs: 0 },
      policies: { progress: { sideEffects: false } },
    });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* () {
          attempts++;
          yield `started ${attempts}`;
          if (attempts === 1) throw unavailable();
          yield 'finished';
        },
      },
    });
    const values = await collect(
      (progress.execute as unknown as StreamingExecute)({}, { toolCallId: 'c1' }),
    );
    expect(values).toEqual(['started 1', 'started 2', 'finished']);
    expect(attempts).toBe(2);
  });

  it('a failure mid-stream that is not retried ends the stream with the recovery contract', async () => {
    const recovery = createRecovery({
      runId: 'run-s3',
      policies: { progress: { sideEffects: false } },
    });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* () {
          yield 'started';
          throw Object.assign(new Error('Precondition Failed'), { status: 412 });
        },
      },
    });
    const values = await collect(
      (progress.execute as unknown as StreamingExecute)({}, { toolCallId: 'c1' }),
    );
    expect(values).toHaveLength(2);
    expect(values[0]).toBe('started');
    expect(isToolCallFailure(values[1])).toBe(true);
    expect(values[1]).toMatchObject({
      failure_class: 'STALE_STATE',
      recommended_recovery: 'REOBSERVE',
    });
  });

  it("with failureMode 'throw', the stream throws the ToolCallFailedError after the values it yielded", async () => {
    const recovery = createRecovery({
      runId: 'run-s4',
      failureMode: 'throw',
      policies: { progress: { sideEffects: false } },
    });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* () {
          yield 'started';
          throw Object.assign(new Error('Forbidden'), { status: 403 });
        },
      },
    });
    const values: unknown[] = [];
    const failure = await (async () => {
      for await (const value of (progress.execute as unknown as StreamingExecute)(
        {},
        { toolCallId: 'c1' },
      ))
        values.push(value);
    })().catch((error: unknown) => error);
    expect(values).toEqual(['started']);
    expect(failure).toBeInstanceOf(ToolCallFailedError);
    expect((failure as ToolCallFailedError).contract).toMatchObject({
      failure_class: 'AUTHORIZATION',
    });
  });

  it('a write stores its final value in the ledger; a duplicate yields just that value and does not run', async () => {
    const keys: string[] = [];
    const recovery = createRecovery({
      runId: 'run-s5',
      policies: { export_report: { sideEffects: true } },
    });
    const { export_report } = recovery.tools({
      export_report: {
        execute: async function* (input: { id: string }) {
          keys.push(callContext().idempotencyKey);
          yield { progress: 0.5 };
          yield { exported: input.id };
        },
      },
    });
    const execute = export_report.execute as unknown as StreamingExecute;
    expect(await collect(execute({ id: 'r-1' }, { toolCallId: 'c1' }))).toEqual([
      { progress: 0.5 },
      { exported: 'r-1' },
    ]);
    expect(await recovery.runtime.ledger.get(keys[0]!)).toMatchObject({
      state: 'completed',
      result: { json: JSON.stringify({ exported: 'r-1' }) },
    });
    expect(await collect(execute({ id: 'r-1' }, { toolCallId: 'c2' }))).toEqual([
      { exported: 'r-1' },
    ]);
    expect(keys).toHaveLength(1);
  });

  it("stays a streaming tool with escalation: 'approval'", async () => {
    const recovery = createRecovery({
      runId: 'run-s6',
      onDenial: 'continue',
      escalation: 'approval',
    });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* () {
          yield 'started';
          yield 'finished';
        },
      },
    });
    const values = await collect(
      (progress.execute as unknown as StreamingExecute)({}, { toolCallId: 'c1', messages: [] }),
    );
    expect(values).toEqual(['started', 'finished']);
  });

  it('a reader that stops early does not stop the call: the write still completes in the ledger', async () => {
    const keys: string[] = [];
    let succeeded!: () => void;
    const stored = new Promise<void>((resolve) => {
      succeeded = resolve;
    });
    const recovery = createRecovery({
      runId: 'run-s8',
      policies: { export_report: { sideEffects: true } },
      // Emitted once the result is in the ledger.
      onEvent: (event) => {
        if (event.type === 'call.succeeded') succeeded();
      },
    });
    const { export_report } = recovery.tools({
      export_report: {
        execute: async function* () {
          keys.push(callContext().idempotencyKey);
          yield 'started';
          yield 'exported';
        },
      },
    });
    const stream = (export_report.execute as unknown as StreamingExecute)({}, { toolCallId: 'c1' });
    for await (const value of stream) {
      expect(value).toBe('started');
      break;
    }
    await stored;
    expect(await recovery.runtime.ledger.get(keys[0]!)).toMatchObject({
      state: 'completed',
      result: { json: '"exported"' },
    });
  });

  it("the caller's abort mid-stream reaches the SDK untouched", async () => {
    const controller = new AbortController();
    const reason = new DOMException('The user cancelled.', 'AbortError');
    const recovery = createRecovery({
      runId: 'run-s9',
      policies: { progress: { sideEffects: false } },
    });
    const { progress } = recovery.tools({
      progress: {
        execute: async function* (_input: unknown, options: { abortSignal: AbortSignal }) {
          yield 'started';
          await new Promise((_resolve, reject) =>
            options.abortSignal.addEventListener('abort', () => reject(options.abortSignal.reason)),
          );
        },
      },
    });
    const values: unknown[] = [];
    const stream = (progress.execute as unknown as StreamingExecute)(
      {},
      { toolCallId: 'c1', abortSignal: controller.signal },
    );
    const failure = (async () => {
      for await (const value of stream) {
        values.push(value);
        controller.abort(reason);
      }
    })().catch((error: unknown) => error);
    expect(await failure).toBe(reason);
    expect(values).toEqual(['started']);
  });

  it('a plain function returning an async iterable is taken as non-streaming and resolves to the last value', async () => {
    const recovery = createRecovery({
      runId: 'run-s7',
      policies: { progress: { sideEffects: false } },
    });
    async function* values() {
      yield 'started';
      yield 'finished';
    }
    const { progress } = recovery.tools({ progress: { execute: () => values() } });
    const execute = progress.execute as unknown as (input: unknown, options: unknown) => unknown;
    const result = execute({}, { toolCallId: 'c1' });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe('finished');
  });

  it('wrapping is idempotent: the same recovery returns its copy, another recovery wraps the original', async () => {
    const recovery = createRecovery({ runId: 'run-w3' });
    const original = { execute: async () => callContext().runId };
    const once = recovery.tools({ refund: original });
    const twice = recovery.tools(once);
    expect(twice.refund).toBe(once.refund);

    const other = createRecovery({ runId: 'run-w4' });
    const moved = other.tools(once);
    const execute = moved.refund.execute as unknown as (i: unknown, o: unknown) => Promise<unknown>;
    // One layer, the new recovery's: the call runs in its context, not nested in the first.
    expect(await execute({}, { toolCallId: 'c1' })).toBe('run-w4');
  });
});
