import { currentCallContext } from '../call-context.js';
import { reachesOverlap } from './reach-overlap.js';
import { untilSettledOrAborted } from './until-settled.js';

/**
 * What the calls of one turn must know of each other. A turn is one model response; its
 * calls are handed over in the response's order (the adapter's business), and anything
 * the adapter cannot order is taken as earlier: whoever joined first is waited for.
 */
export interface TurnCallFacts {
  toolCallId: string;
  /** A write or a tool that may write: it waits for every earlier call (unless parallel writes). */
  mayWrite: boolean;
  /** Its canonical resources, asked at most once; undefined reaches everything. */
  resources: () => readonly string[] | undefined;
}

/** A call's place in its turn: what it waits for, and its leaving, which wakes the later ones. */
export interface TurnPlace {
  /** Earlier calls of the turn still in flight that this call must wait for. */
  readonly waits: boolean;
  /**
   * Waits until every call this one waits for has settled. Each time an earlier call of the
   * turn settles, `recheck` asks the guard again: a refusal ends the wait and is returned
   * (the call never runs). Undefined when the call may run. The caller's abort rejects
   * with the signal's reason.
   */
  wait<R>(
    signal: AbortSignal | undefined,
    recheck: () => R | undefined | Promise<R | undefined>,
  ): Promise<R | undefined>;
  /** The call settled (ran, was refused, or was aborted): the turn forgets it. */
  leave(): void;
}

export interface TurnCoordinator {
  /**
   * Takes a call's place in the turn `turn` (any value the same for every call of one
   * response, compared with `===`). Undefined when there is no turn to coordinate: no
   * turn given, or a call made from inside a call of the same turn (it must not wait for
   * the call it runs in).
   */
  join(turn: unknown, facts: TurnCallFacts): TurnPlace | undefined;
  /** Turns with a call still in flight (their bookkeeping is released when they settle). */
  readonly openTurns: number;
}

export interface TurnCoordinatorOptions {
  /** Writes wait only for the calls whose resources overlap theirs, like reads. */
  parallelWrites: boolean;
}

/** Where a member lives and whom it tells that it left (the coordinator). */
interface Turns {
  left(member: Member): void;
}

class Member implements TurnPlace {
  settled = false;
  private settling: Promise<void> | undefined;
  private resolve: (() => void) | undefined;
  private reach: readonly string[] | undefined | null = null;
  /** Set once, at joining: every earlier call still in flight, and those to wait for. */
  earlier: readonly Member[] = [];
  blockers: readonly Member[] = [];
  /** The turn's calls in flight, once a second call joined it; undefined while alone. */
  group: Set<Member> | undefined;

  constructor(
    readonly turn: unknown,
    readonly facts: TurnCallFacts,
    private readonly turns: Turns,
  ) {}

  /** Resolves when the call leaves; made only when a later call waits for it. */
  get done(): Promise<void> {
    if (this.settled) return Promise.resolve();
    this.settling ??= new Promise<void>((resolve) => {
      this.resolve = resolve;
    });
    return this.settling;
  }

  resources(): readonly string[] | undefined {
    if (this.reach === null) this.reach = this.facts.resources();
    return this.reach;
  }

  get waits(): boolean {
    const blockers = this.blockers;
    for (let i = 0; i < blockers.length; i++) if (!blockers[i]!.settled) return true;
    return false;
  }

  async wait<R>(
    signal: AbortSignal | undefined,
    recheck: () => R | undefined | Promise<R | undefined>,
  ): Promise<R | undefined> {
    while (this.waits) {
      // Any earlier call settling may have stopped the run or recorded a denial: ask again.
      await untilSettledOrAborted(
        this.earlier.filter((member) => !member.settled).map((member) => member.done),
        signal,
      );
      // Woken as the caller aborted (its abort settled an earlier call): never run.
      signal?.throwIfAborted();
      const refused = await recheck();
      if (refused !== undefined) return refused;
    }
    return undefined;
  }

  leave(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve?.();
    this.turns.left(this);
  }
}

/**
 * The calls of one turn, in order: a write (or a tool that may write) waits until every
 * earlier call of its turn has settled; any call waits for the earlier calls still in
 * flight whose resources overlap its own (a tool without a `resource` function reaches
 * everything). Unrelated reads run side by side. Waiting calls only ever wait for calls
 * that joined before them, so no two wait for each other.
 *
 * A call alone in its turn (the common case: one call per step, or calls one after
 * another) costs one object: it is kept aside as `alone`, and the turn gets its set of
 * members only when a second call joins while the first is still in flight.
 */
export function createTurnCoordinator(options: TurnCoordinatorOptions): TurnCoordinator {
  const turns = new Map<unknown, Set<Member>>();
  let alone: Member | undefined;

  const registry: Turns = {
    left(member) {
      if (alone === member) {
        alone = undefined;
        return;
      }
      const own = member.group;
      if (!own) return;
      own.delete(member);
      if (own.size === 0 && turns.get(member.turn) === own) turns.delete(member.turn);
    },
  };

  const join = (turn: unknown, facts: TurnCallFacts): TurnPlace | undefined => {
    if (turn === undefined || turn === null) return undefined;
    let own: Set<Member> | undefined;
    if (alone !== undefined && alone.turn === turn) {
      if (insideMember([alone])) return undefined;
      // A second call of the lone call's turn: the turn gets its set of members now.
      own = new Set<Member>([alone]);
      alone.group = own;
      turns.set(turn, own);
      alone = undefined;
    } else if (turns.size > 0) {
      own = turns.get(turn);
      if (own && own.size > 0 && insideMember(own)) return undefined;
    }
    if (own === undefined) {
      // Nothing of this turn in flight and the spare place is free: no set, no map entry.
      if (alone === undefined) {
        alone = new Member(turn, facts, registry);
        return alone;
      }
      own = new Set<Member>();
      turns.set(turn, own);
    }
    const member = new Member(turn, facts, registry);
    member.group = own;
    if (own.size > 0) {
      member.earlier = [...own];
      member.blockers =
        facts.mayWrite && !options.parallelWrites
          ? member.earlier
          : member.earlier.filter((other) => reachesOverlap(other.resources(), member.resources()));
    }
    own.add(member);
    return member;
  };

  return {
    join,
    get openTurns() {
      return turns.size + (alone === undefined ? 0 : 1);
    },
  };
}

/** A call made from inside the execution of a call of this turn (a tool calling a tool). */
function insideMember(members: Iterable<Member>): boolean {
  const outer = currentCallContext();
  if (outer === undefined) return false;
  for (const member of members) if (member.facts.toolCallId === outer.toolCallId) return true;
  return false;
}
