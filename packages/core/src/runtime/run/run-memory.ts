import type {
  AccessGrant,
  Denial,
  Escalation,
  FactWatch,
  Ledger,
  PoisonedOperation,
  RunFactKind,
  RunFactLists,
  RunFacts,
} from '../../ledger/ledger.js';
import type { LedgerDeadline } from '../ledger-deadline.js';

/** What the run has learned, as this process knows it now. */
export interface LearnedFacts {
  readonly denials: readonly Denial[];
  readonly grants: readonly AccessGrant[];
  readonly poison: ReadonlyMap<string, PoisonedOperation>;
  readonly poisonedTools: ReadonlySet<string>;
  readonly escalations: ReadonlyMap<string, Escalation>;
  /**
   * Set when the store could not be read just now (it threw, or did not answer within
   * `ledgerTimeoutMs`): what it says. The facts are then the last ones known.
   */
  readonly unreadable?: unknown;
}

/**
 * The run's learned facts (denials, grants, poisoned operations, escalations) shared
 * through the ledger, so that every worker and every restart honours them. Cached: while
 * the store pushes changes (`watchFacts` live) a check costs no round trip; otherwise the
 * facts are read again before each check. A fact learnt here is known here at once, even
 * when the store is down (it is written when it can be), so an outage never reopens a
 * closed route. Every store operation is bounded by the ledger's deadline: a hung store
 * answers like one that is down.
 */
export interface RunMemory {
  /**
   * The facts now: the cache when it is known to be current, else read again. Never
   * rejects: a store that cannot be read gives the facts last known, with `unreadable`.
   */
  current(): LearnedFacts | Promise<LearnedFacts>;
  /** The last facts known, without asking the store. */
  known(): LearnedFacts;
  /** True when `current()` would answer without a round trip. */
  fresh(): boolean;
  add<K extends RunFactKind>(kind: K, id: string, fact: RunFacts[K]): Promise<void>;
  /** Repairs spent on a fingerprint; undefined when the store could not say (fail closed). */
  repairs(fingerprint: string): Promise<number | undefined>;
  addRepair(fingerprint: string): Promise<void>;
  /** Stops watching the store (idempotent); the facts are read before each check from then on. */
  close(): void;
}

const empty: RunFactLists = { denial: [], grant: [], poison: [], escalation: [] };

export function createRunMemory(
  runId: string,
  ledger: Ledger,
  deadline: LedgerDeadline,
): RunMemory {
  // Facts learnt in this process, kept even when writing them to the store failed.
  const local: RunFactLists = { denial: [], grant: [], poison: [], escalation: [] };
  const localIds = new Set<string>();
  let stored: RunFactLists = empty;
  let facts = index(stored, local);
  let loaded = false;
  let changes = 0;
  let reading: Promise<LearnedFacts> | undefined;
  let watch: FactWatch | undefined;
  try {
    watch = ledger.watchFacts?.(runId, () => {
      changes++;
      loaded = false;
    });
  } catch {
    watch = undefined; // a store that cannot watch is read before every check instead
  }

  const read = (): Promise<LearnedFacts> => {
    const seen = changes;
    const pending = (async (): Promise<LearnedFacts> => {
      try {
        stored = await deadline.bound('listFacts', ledger.listFacts(runId));
        // Current unless a change arrived while reading: then the next check reads again.
        loaded = changes === seen;
      } catch (error) {
        // Unreadable store: keep what is known (a closed route stays closed) and say so,
        // so that nothing runs on facts that may be missing another worker's denial.
        facts = index(stored, local);
        return { ...facts, unreadable: error };
      }
      facts = index(stored, local);
      return facts;
    })();
    reading = pending;
    // The read never rejects (failures are caught above), so this chain cannot either.
    void pending.then(() => {
      if (reading === pending) reading = undefined;
    });
    return pending;
  };

  const fresh = () => loaded && watch?.live === true && reading === undefined;

  return {
    fresh,
    current: () => (fresh() ? facts : (reading ?? read())),
    known: () => facts,
    async add(kind, id, fact) {
      const localId = `${kind}\u0000${id}`;
      if (!localIds.has(localId)) {
        localIds.add(localId);
        (local[kind] as RunFacts[typeof kind][]).push(fact);
        facts = index(stored, local);
      }
      try {
        await deadline.bound('addFact', ledger.addFact(runId, kind, id, fact));
      } catch {
        // Known here at once; the store gets it when the same fact is learnt again.
        localIds.delete(localId);
      }
    },
    async repairs(fingerprint) {
      try {
        return await deadline.bound('getRepairs', ledger.getRepairs(runId, fingerprint));
      } catch {
        return undefined;
      }
    },
    async addRepair(fingerprint) {
      try {
        await deadline.bound('addRepair', ledger.addRepair(runId, fingerprint));
      } catch {
        // Counted again when the same failure repeats and the store is back.
      }
    },
    close() {
      // Not watched any more: every check reads the facts again.
      watch?.close();
      watch = undefined;
    },
  };
}

/** The store's facts and the local ones, deduplicated, the store's first. */
function index(stored: RunFactLists, local: RunFactLists): LearnedFacts {
  const merge = <K extends RunFactKind>(kind: K, id: (fact: RunFacts[K]) => string) => {
    const byId = new Map<string, RunFacts[K]>();
    for (const fact of [...(stored[kind] ?? []), ...local[kind]] as RunFacts[K][]) {
      const key = id(fact);
      if (!byId.has(key)) byId.set(key, fact);
    }
    return byId;
  };
  const poison = merge('poison', (p) => p.operation);
  return {
    denials: [...merge('denial', denialId).values()],
    grants: [...merge('grant', (g) => g.resource).values()],
    poison,
    poisonedTools: new Set([...poison.values()].map((p) => p.tool)),
    escalations: merge('escalation', (e) => e.toolCallId),
  };
}

/** One denial per resource and capability. */
export function denialId(denial: Pick<Denial, 'resource' | 'capability'>): string {
  return JSON.stringify([denial.resource, denial.capability ?? null]);
}
