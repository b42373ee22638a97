import { randomUUID } from 'node:crypto';
import { perSecond, type RateSample, sampleRate } from './measure-rate.js';
import type { StoreCase } from './store-cases.js';

const rounds = 4;
const zero = (): RateSample => ({ operations: 0, seconds: 0 });

export interface StoreRow {
  store: string;
  clients: number;
  /** `ledger.claim` on fresh keys, per second. */
  claim: number;
  /** `ledger.claim` then `ledger.complete`, per second. */
  claimComplete: number;
  /** The store's raw conditional write on fresh keys, per second. */
  raw: number;
  /** claim ÷ raw: the share of the store's raw speed the ledger keeps. */
  ratio: number;
}

/** Claim, claim+complete and the raw write, each over `durationMs`, on fresh keys. */
export async function measureStore(
  store: StoreCase,
  clients: number,
  durationMs: number,
): Promise<StoreRow> {
  const tag = randomUUID().slice(0, 8);
  const ledgerOf = (client: number) => store.ledgers[client % store.ledgers.length]!;
  // Warm up connections and prepared statements outside the measured window.
  await Promise.all(
    store.ledgers.map((ledger, i) => ledger.claim({ key: `${tag}:warm:${i}`, payloadHash: 'h' })),
  );
  await store.rawWrite(0, `${tag}:warm`);

  const operations: Record<
    'claim' | 'claimComplete' | 'raw',
    (c: number, i: number) => Promise<unknown>
  > = {
    claim: (client, i) => ledgerOf(client).claim({ key: `${tag}:c:${i}`, payloadHash: 'h' }),
    claimComplete: async (client, i) => {
      const key = `${tag}:cc:${i}`;
      const claimed = await ledgerOf(client).claim({ key, payloadHash: 'h' });
      if (claimed.status !== 'acquired') throw new Error(`fresh key ${key} was ${claimed.status}`);
      await ledgerOf(client).complete(key, claimed.token, { json: '{"ok":true}' });
    },
    raw: async (client, i) => {
      if (!(await store.rawWrite(client, `${tag}:r:${i}`)))
        throw new Error('fresh raw key existed');
    },
  };
  // Interleaved short rounds, so that a noisy neighbour on a shared machine slows the
  // ledger and the raw write alike and the ratio stays meaningful.
  const totals = { claim: zero(), claimComplete: zero(), raw: zero() };
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    for (const name of ['claim', 'claimComplete', 'raw'] as const) {
      const sample = await sampleRate(operations[name], {
        durationMs: durationMs / rounds,
        clients,
        startAt: next,
      });
      next = sample.next;
      totals[name].operations += sample.operations;
      totals[name].seconds += sample.seconds;
    }
  }
  const claim = perSecond(totals.claim);
  const claimComplete = perSecond(totals.claimComplete);
  const raw = perSecond(totals.raw);
  return { store: store.name, clients, claim, claimComplete, raw, ratio: claim / raw };
}
