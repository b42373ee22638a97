/** mulberry32: a tiny seeded PRNG, good enough for fault schedules and jitter. */
export function createPrng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a over the parts: a stable 32-bit seed for one named thing (an operation, a request). */
export function hashSeed(...parts: (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** One uniform draw in [0, 1) that depends only on the parts, not on call order. */
export function drawFor(...parts: (string | number)[]): number {
  return createPrng(hashSeed(...parts))();
}
