import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';
import { createRecovery } from '@recourse/ai-sdk';
import {
  canonicalJson,
  currentCallContext,
  deriveIdempotencyKey,
  MemoryLedger,
} from '@recourse/core';
import { tool } from 'ai';
import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import pRetry from 'p-retry';
import { z } from 'zod';

type Execute = (
  input: unknown,
  options: { toolCallId: string; messages: []; context: undefined },
) => Promise<unknown>;

export interface OverheadCase {
  name: string;
  /** Builds a fresh caller (a fresh ledger for the recourse writes), outside the timed loop. */
  prepare: () => (i: number) => unknown;
  /** A synchronous call (timed without an `await`, which would add a promise per call). */
  sync?: boolean | undefined;
}

export const caseNames = {
  bareRead: 'bare read tool',
  cockatiel: 'cockatiel retry (read)',
  pRetry: 'p-retry (read)',
  recourseRead: 'recourse read tool',
  bareWrite: 'bare write tool',
  recourseWrite: 'recourse write tool (memory ledger)',
  sha256: 'sha256 of the key material',
  recourseReadNoTracing: 'recourse read tool, tracing off (tracer: false)',
  contextFloor: 'bare read inside AsyncLocalStorage.run (the call context alone)',
  ledgerFloor: 'MemoryLedger claim + complete alone',
  writeFloor:
    'in-process floor of a write: AsyncLocalStorage frame + sha256 of the key material + MemoryLedger claim and complete',
  writeKey: "the write's key: canonical JSON of its input and that text's sha256",
  resultJson: "the write's result as the ledger stores it (JSON.stringify)",
} as const;

// The floors' context, one for the process as recourse's own is: each AsyncLocalStorage
// ever run adds an entry to the context frames Node copies on every run (Node 24's
// AsyncContextFrame), so a new one per case would inflate every later case's figure.
const floorStorage = new AsyncLocalStorage<object>();

const options = { toolCallId: 'call-1', messages: [] as [], context: undefined };

// The downstream stand-in: an async function that does no I/O, so only the wrapper is measured.
const lookupOrder = tool({
  description: 'Look up an order',
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ orderId, status: 'shipped' }),
});
const refundPayment = tool({
  description: 'Refund a payment',
  inputSchema: z.object({ paymentId: z.string(), amount: z.number() }),
  execute: async ({ paymentId, amount }) => ({
    refundId: `r-${paymentId}`,
    amount,
    // What a real write sends downstream; undefined in the bare call (no wrapper).
    idempotencyKey: currentCallContext()?.idempotencyKey,
  }),
});

const bareRead = lookupOrder.execute as unknown as Execute;
const bareWrite = refundPayment.execute as unknown as Execute;
const readInput = { orderId: 'o-42' };
// Each write is a new logical operation (a new key), so every call claims and completes.
const writeInput = (i: number) => ({ paymentId: `p-${i}`, amount: 1999 });

// What a write's key is derived from (run, tool, canonical input), as one flat string:
// a concatenation is a rope that the hash would flatten on every call.
const keyMaterial = Buffer.from(
  `bench-run\u0000refund_payment\u0000${canonicalJson(writeInput(42))}`,
).toString();

function wrapped(extra: { tracer?: false } = {}) {
  const recovery = createRecovery({
    ...extra,
    runId: 'bench-run',
    ledger: new MemoryLedger(),
    // The read declared as one: a tool that declares nothing may write, and is claimed.
    policies: {
      lookup_order: { sideEffects: false },
      refund_payment: { sideEffects: true, idempotent: true },
    },
  });
  const tools = recovery.tools({ lookup_order: lookupOrder, refund_payment: refundPayment });
  return {
    read: tools.lookup_order.execute as unknown as Execute,
    write: tools.refund_payment.execute as unknown as Execute,
  };
}

/** Success-path calls: a bare tool, the same tool under cockatiel, p-retry and recourse. */
export const overheadCases: readonly OverheadCase[] = [
  { name: caseNames.bareRead, prepare: () => () => bareRead(readInput, options) },
  {
    name: caseNames.cockatiel,
    prepare: () => {
      const policy = retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() });
      return () => policy.execute(() => bareRead(readInput, options));
    },
  },
  { name: caseNames.pRetry, prepare: () => () => pRetry(() => bareRead(readInput, options)) },
  {
    name: caseNames.recourseRead,
    prepare: () => {
      const { read } = wrapped();
      return () => read(readInput, options);
    },
  },
  {
    // What tracing costs with no SDK registered: the difference to the case above.
    name: caseNames.recourseReadNoTracing,
    prepare: () => {
      const { read } = wrapped({ tracer: false });
      return () => read(readInput, options);
    },
  },
  {
    // A bound of the read's overhead: `callContext()` needs the tool to run in its context.
    name: caseNames.contextFloor,
    prepare: () => {
      const context = { runId: 'bench-run' };
      return () => floorStorage.run(context, bareRead, readInput, options);
    },
  },
  { name: caseNames.bareWrite, prepare: () => (i) => bareWrite(writeInput(i), options) },
  {
    // A bound of the write's overhead: storing a claim and its result, nothing else.
    name: caseNames.ledgerFloor,
    prepare: () => {
      const ledger = new MemoryLedger();
      return async (i) => {
        const key = `bench-run:refund_payment:${i}`;
        const claimed = await ledger.claim({ key, payloadHash: 'h' });
        if (claimed.status === 'acquired')
          await ledger.complete(key, claimed.token, { json: '{}' });
      };
    },
  },
  {
    // What exactly-once costs at the least, in this process: the call's context, its key
    // (one hash of what it is derived from) and the claim and completion of that key.
    name: caseNames.writeFloor,
    prepare: () => {
      const ledger = new MemoryLedger();
      const write = async (i: number) => {
        const key = hash('sha256', `${keyMaterial}${i}`, 'hex');
        const claimed = await ledger.claim({ key, payloadHash: 'h' });
        if (claimed.status === 'acquired')
          await ledger.complete(key, claimed.token, { json: '{}' });
      };
      return (i) => floorStorage.run({ runId: 'bench-run' }, write, i);
    },
  },
  {
    name: caseNames.recourseWrite,
    prepare: () => {
      const { write } = wrapped();
      return (i) => write(writeInput(i), options);
    },
  },
  {
    name: caseNames.sha256,
    sync: true,
    prepare: () => () => hash('sha256', keyMaterial, 'hex'),
  },
  // Two parts of what a recourse write adds to its floor, measured alone: its key derived
  // from the input (the floor hashes ready-made material), and its result's JSON.
  {
    name: caseNames.writeKey,
    sync: true,
    prepare: () => (i) =>
      deriveIdempotencyKey({
        runId: 'bench-run',
        toolName: 'refund_payment',
        input: writeInput(i),
      }),
  },
  {
    name: caseNames.resultJson,
    sync: true,
    prepare: () => (i) =>
      JSON.stringify({ refundId: `r-p-${i}`, amount: 1999, idempotencyKey: keyMaterial }),
  },
];
