import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KillPoint, WriteTool } from './protocol.js';

/** What one job did to the downstream, per write. */
export interface WriteCounts {
  /** Requests that reached the downstream. */
  requests: number;
  /** Writes that changed it (a deduplicated repeat does not). */
  applied: number;
}

interface Held {
  response: ServerResponse;
  /** Set for a `held` request: applied once the worker is dead. */
  apply?: (() => void) | undefined;
}

export interface Downstream {
  url: string;
  /** Where each job's process dies: the downstream holds that write's first request. */
  plan(jobId: string, write: WriteTool, point: KillPoint): void;
  /** Called with a job's id when the downstream holds its request (the job stands at its point). */
  onHeld: (jobId: string) => void;
  /** After the kill: applies the requests held unapplied, drops every held response. */
  release(): void;
  counts(jobId: string): Record<WriteTool, WriteCounts>;
  close(): Promise<void>;
}

/**
 * The job's downstream, in the benchmark's own process so that it outlives every worker:
 * `POST /write` applies a write (the stock service dedupes on the key, payments and letters
 * apply every request), `GET /find` answers a reconcile read by key.
 */
export async function startDownstream(): Promise<Downstream> {
  const receipts = new Map<string, string>(); // tool + key → receipt, for dedupe and find
  const counts = new Map<string, WriteCounts>(); // job + tool → counts
  const plans = new Map<string, { write: WriteTool; point: KillPoint }>();
  const held: Held[] = [];
  let applied = 0;
  const countsOf = (jobId: string, tool: string) => {
    const id = `${jobId}\u0000${tool}`;
    const known = counts.get(id);
    if (known) return known;
    const fresh = { requests: 0, applied: 0 };
    counts.set(id, fresh);
    return fresh;
  };
  const apply = (jobId: string, tool: string, key: string): string => {
    const id = `${tool}\u0000${key}`;
    const first = receipts.get(id);
    if (tool === 'reserve_stock' && first) return first;
    const receipt = `${tool}-${++applied}`;
    if (!first) receipts.set(id, receipt);
    countsOf(jobId, tool).applied += 1;
    return receipt;
  };

  const downstream: Downstream = {
    url: '',
    plan: (jobId, write, point) => plans.set(jobId, { write, point }),
    onHeld: () => {},
    release() {
      for (const entry of held.splice(0)) {
        entry.apply?.();
        entry.response.destroy();
      }
    },
    counts: (jobId) => ({
      reserve_stock: { ...countsOf(jobId, 'reserve_stock') },
      charge_card: { ...countsOf(jobId, 'charge_card') },
      send_letter: { ...countsOf(jobId, 'send_letter') },
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const write = (body: { jobId: string; tool: string; key: string }, res: ServerResponse) => {
    const { jobId, tool, key } = body;
    const c = countsOf(jobId, tool);
    c.requests += 1;
    const plan = plans.get(jobId);
    // Only the first request of the planned write is held: the resumed run's is answered.
    if (plan && plan.write === tool && plan.point !== 'before-send' && c.requests === 1) {
      if (plan.point === 'after-apply') {
        apply(jobId, tool, key);
        held.push({ response: res });
      } else held.push({ response: res, apply: () => apply(jobId, tool, key) });
      downstream.onHeld(jobId);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ receipt: apply(jobId, tool, key) }));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://downstream');
      if (req.method === 'POST' && url.pathname === '/write') {
        write(JSON.parse(Buffer.concat(chunks).toString()), res);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/find') {
        const receipt = receipts.get(
          `${url.searchParams.get('tool')}\u0000${url.searchParams.get('key')}`,
        );
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(receipt ? { found: true, receipt } : { found: false }));
        return;
      }
      res.writeHead(404).end();
    });
  });
  // A held response's socket is destroyed after the kill; nothing to report then.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  downstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return downstream;
}
