import { describe, expect, it } from 'vitest';
import { runInCallContext } from '../call-context.js';
import { createTurnCoordinator, type TurnCallFacts } from './turn-coordinator.js';

const read = (id: string, resources?: string[]): TurnCallFacts => ({
  toolCallId: id,
  mayWrite: false,
  resources: () => resources,
});
const write = (id: string, resources?: string[]): TurnCallFacts => ({
  toolCallId: id,
  mayWrite: true,
  resources: () => resources,
});

/** Lets every pending promise callback run (no time passes: microtasks only). */
const drain = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** Starts a wait and reports whether it has ended, and how. */
function watch<R>(promise: Promise<R | undefined>) {
  const state: { ended: boolean; value?: R | undefined; error?: unknown } = { ended: false };
  promise.then(
    (value) => Object.assign(state, { ended: true, value }),
    (error: unknown) => Object.assign(state, { ended: true, error }),
  );
  return state;
}

describe('turn coordinator', () => {
  it('coordinates nothing without a turn, and nothing for the first call of one', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    expect(turns.join(undefined, write('a'))).toBeUndefined();
    const first = turns.join('t', write('a'));
    expect(first?.waits).toBe(false);
  });

  it('a write waits until every earlier call of its turn has settled', async () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    const a = turns.join('t', read('a', ['https://x.test/a']));
    const b = turns.join('t', read('b', ['https://x.test/b']));
    const w = turns.join('t', write('w', ['payment:p-1']));
    expect(w?.waits).toBe(true);
    let checks = 0;
    const waiting = watch(w!.wait(undefined, () => void checks++));
    a!.leave();
    await drain();
    expect(waiting.ended).toBe(false);
    expect(checks).toBe(1); // checked again when the first earlier call settled
    b!.leave();
    await drain();
    expect(waiting).toEqual({ ended: true, value: undefined });
    expect(checks).toBe(2);
  });

  it('a refusal found while waiting ends the wait before the earlier calls settle', async () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    const denied = turns.join('t', write('denied', ['payment:p-1']));
    const slow = turns.join('t', read('slow', ['https://x.test/slow']));
    const w = turns.join('t', write('email', ['mailto:a@x.test']));
    let stopped = false;
    const waiting = watch(w!.wait(undefined, () => (stopped ? 'RUN_STOPPED' : undefined)));
    stopped = true;
    denied!.leave();
    await drain();
    expect(waiting).toEqual({ ended: true, value: 'RUN_STOPPED' });
    expect(slow?.waits).toBe(false);
  });

  it('unrelated reads run side by side; an overlapping call waits for that call only', async () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    const repo = turns.join('t', read('repo', ['https://github.com/acme/secret']));
    const other = turns.join('t', read('other', ['https://github.com/acme/public']));
    expect(other?.waits).toBe(false);
    const below = turns.join('t', read('below', ['https://github.com/acme/secret/issues/1']));
    expect(below?.waits).toBe(true);
    const waiting = watch(below!.wait(undefined, () => undefined));
    other!.leave();
    await drain();
    expect(waiting.ended).toBe(false);
    repo!.leave();
    await drain();
    expect(waiting.ended).toBe(true);
  });

  it('a call without resources reaches everything; one that reaches nothing waits for no read', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    turns.join('t', read('a', ['https://x.test/a']));
    expect(turns.join('t', read('anything'))?.waits).toBe(true);
    expect(turns.join('t', read('echo', []))?.waits).toBe(false);
  });

  it('parallelWrites: a write waits only for the earlier calls it overlaps', () => {
    const turns = createTurnCoordinator({ parallelWrites: true });
    turns.join('t', write('refund', ['payment:p-1']));
    expect(turns.join('t', write('email', ['mailto:a@x.test']))?.waits).toBe(false);
    expect(turns.join('t', write('again', ['payment:p-1']))?.waits).toBe(true);
    expect(turns.join('t', write('undeclared'))?.waits).toBe(true);
  });

  it('different turns never wait for each other', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    const one = {};
    const two = {};
    turns.join(one, write('a'));
    expect(turns.join(two, write('b'))?.waits).toBe(false);
    expect(turns.openTurns).toBe(2);
  });

  it("the caller's abort ends a wait with the signal's reason", async () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    turns.join('t', read('hangs'));
    const w = turns.join('t', write('w'));
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const waiting = watch(w!.wait(controller.signal, () => undefined));
    controller.abort(reason);
    await drain();
    expect(waiting).toEqual({ ended: true, error: reason });
    const aborted = watch(w!.wait(controller.signal, () => undefined));
    await drain();
    expect(aborted).toEqual({ ended: true, error: reason });
  });

  it('releases a turn once every call of it has settled', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    const places = ['a', 'b', 'c'].map((id) => turns.join('t', write(id)));
    expect(turns.openTurns).toBe(1);
    for (const place of places) place?.leave();
    places[0]?.leave(); // twice is harmless
    expect(turns.openTurns).toBe(0);
    // A call of the same response arriving after all settled waits for nothing.
    expect(turns.join('t', write('late'))?.waits).toBe(false);
  });

  it('a call made from inside a call of the same turn does not wait for it', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    turns.join('t', write('outer'));
    const context = {
      runId: 'r',
      toolName: 'outer',
      toolCallId: 'outer',
      idempotencyKey: 'k',
      attempt: 1,
    };
    const inner = runInCallContext(context, () => turns.join('t', write('inner')));
    expect(inner).toBeUndefined();
    expect(turns.join('t', write('sibling'))?.waits).toBe(true);
  });

  it('asks for resources only when another call of the turn is in flight', () => {
    const turns = createTurnCoordinator({ parallelWrites: false });
    let asked = 0;
    const counted: TurnCallFacts = {
      toolCallId: 'a',
      mayWrite: false,
      resources: () => {
        asked++;
        return ['https://x.test/a'];
      },
    };
    turns.join('alone', counted)?.leave();
    expect(asked).toBe(0);
    turns.join('t', counted);
    turns.join('t', { ...counted, toolCallId: 'b' });
    expect(asked).toBe(2);
  });
});
