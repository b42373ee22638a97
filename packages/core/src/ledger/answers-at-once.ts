// Store methods that do all their work before they return (MemoryLedger, SqliteLedger on
// node:sqlite): their promise is settled when the runtime gets it, so a deadline could
// never fire and is not set. A method replaced on an instance is not in the set.
const immediate = new WeakSet<object>();

/** Marks the ledger methods of `prototype` as methods that answer before they return. */
export function markAnswersAtOnce(prototype: object): void {
  for (const name of ledgerMethodNames) {
    const method = (prototype as Record<string, unknown>)[name];
    if (typeof method === 'function') immediate.add(method);
  }
}

/** True when `store[name]` is a method marked by `markAnswersAtOnce`. */
export function answersAtOnce(store: object, name: string): boolean {
  const method = (store as Record<string, unknown>)[name];
  return typeof method === 'function' && immediate.has(method);
}

/** The methods of the `Ledger` interface a store may mark. */
export const ledgerMethodNames = [
  'claim',
  'complete',
  'renew',
  'release',
  'markUncertain',
  'get',
  'addRepair',
  'getRepairs',
  'addFact',
  'listFacts',
] as const;
