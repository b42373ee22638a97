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

class Member implements TurnPlace {
  settled = false;
  private settling: Promise<void> | undefined;
  private resolve: (() => void) | undefined;
  private reach: readonly string[] | undefined | null = null;
  /** Set once, at joining: every earlier call still in flight, and those to wait for. */
  earlier: readonly Member[] = [];
  blockers: readonly Member[] = [];

  constructor(
    readonly facts: TurnCallFacts,
    private readonly onLeave: (member: Member) => void,
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
    return this.blockers.some((member) => !member.settled);
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
    this.onLeave(this);
  }
}

/**
 * The calls of one turn, in order: a write (or a tool that may write) waits until every
 * earlier call of its turn has settled; any call waits for the earlier calls still in
 * flight whose resources overlap its own (a tool without a `resource` function reaches
 * everything). Unrelated reads run side by side. Waiting calls only ever wait for calls
 * that joined before them, so no two wait for each other.
 */
export function createTurnCoordinator(options: TurnCoordinatorOptions): TurnCoordinator {
  const turns = new Map<unknown, Set<Member>>();

  const join = (turn: unknown, facts: TurnCallFacts): TurnPlace | undefined => {
    if (turn === undefined || turn === null) return undefined;
    let members = turns.get(turn);
    if (members && members.size > 0 && insideMember(members)) return undefined;
    if (!members) {
      members = new Set();
      turns.set(turn, members);
    }
    const own = members;
    const member = new Member(facts, (left) => {
      own.delete(left);
      if (own.size === 0 && turns.get(turn) === own) turns.delete(turn);
    });
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
      return turns.size;
    },
  };
}

/** A call made from inside the execution of a call of this turn (a tool calling a tool). */
function insideMember(members: ReadonlySet<Member>): boolean {
  const outer = currentCallContext();
  if (outer === undefined) return false;
  for (const member of members) if (member.facts.toolCallId === outer.toolCallId) return true;
  return false;
}
