/** A set of the most recent ids, bounded so a long-lived run does not grow without end. */
export interface RecentIds {
  add(id: string): void;
  has(id: string): boolean;
}

export function createRecentIds(limit = 1_000): RecentIds {
  const ids = new Set<string>();
  return {
    add(id) {
      if (ids.has(id)) return;
      ids.add(id);
      if (ids.size > limit) ids.delete(ids.values().next().value as string);
    },
    has: (id) => ids.has(id),
  };
}
