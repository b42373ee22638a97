import { pathResource, shellResources } from '@recourse/core';
import { HttpResponse, http } from 'msw';
import { z } from 'zod';

/**
 * A downstream for the calls of one turn, at the HTTP boundary (msw): payments (p-1 is
 * forbidden), mail, and files (`/srv/app/.env` is forbidden). It records every request
 * that reached it; the tools count how many of them are in flight at once. Each handler
 * holds its answer until a second call is in flight or a bounded number of event-loop
 * turns passed, so calls that may overlap do, without any clock.
 */
export function createTurnShop() {
  const requests: string[] = [];
  const counts = { inFlight: 0, maxInFlight: 0 };
  const company = async () => {
    for (let turn = 0; turn < 1000 && counts.inFlight < 2; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const forbidden = () => HttpResponse.json({ message: 'Forbidden' }, { status: 403 });
  const handlers = [
    http.post('https://pay.test/refunds/:id', async ({ params }) => {
      requests.push(`refund ${params.id}`);
      await company();
      return params.id === 'p-1' ? forbidden() : HttpResponse.json({ refunded: params.id });
    }),
    http.get('https://pay.test/payments/:id', async ({ params }) => {
      requests.push(`payment ${params.id}`);
      await company();
      return HttpResponse.json({ id: params.id, status: 'captured' });
    }),
    http.post('https://mail.test/send', async ({ request }) => {
      requests.push(`email ${new URL(request.url).searchParams.get('to')}`);
      await company();
      return HttpResponse.json({ sent: true });
    }),
    http.get('https://files.test/*', async ({ request }) => {
      const path = new URL(request.url).pathname;
      requests.push(`file ${path}`);
      await company();
      return path.endsWith('.env') ? forbidden() : HttpResponse.text(`contents of ${path}`);
    }),
  ];

  const send = async (method: string, url: string): Promise<string> => {
    counts.inFlight++;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    try {
      const response = await fetch(url, { method });
      if (!response.ok) {
        throw Object.assign(new Error(`${method} ${url} failed with status ${response.status}`), {
          status: response.status,
        });
      }
      return await response.text();
    } finally {
      counts.inFlight--;
    }
  };

  const tools = {
    refund_payment: {
      inputSchema: z.object({ paymentId: z.string() }),
      execute: ({ paymentId }: { paymentId: string }) =>
        send('POST', `https://pay.test/refunds/${paymentId}`),
    },
    get_payment: {
      inputSchema: z.object({ paymentId: z.string() }),
      execute: ({ paymentId }: { paymentId: string }) =>
        send('GET', `https://pay.test/payments/${paymentId}`),
    },
    send_email: {
      inputSchema: z.object({ to: z.string() }),
      execute: ({ to }: { to: string }) =>
        send('POST', `https://mail.test/send?to=${encodeURIComponent(to)}`),
    },
    read_file: {
      inputSchema: z.object({ path: z.string() }),
      execute: ({ path }: { path: string }) => send('GET', `https://files.test${path}`),
    },
    // A shell that can only `cat` a file: another route to what read_file reads.
    shell: {
      inputSchema: z.object({ command: z.string() }),
      execute: ({ command }: { command: string }) =>
        send('GET', `https://files.test${/^cat (\S+)$/.exec(command)?.[1] ?? '/'}`),
    },
  };

  return { requests, counts, handlers, tools };
}

/** Writes and reads, each with the resource it reaches. */
export const turnPolicies = {
  refund_payment: {
    sideEffects: true,
    resource: (i: { paymentId: string }) => `payment:${i.paymentId}`,
  },
  get_payment: {
    sideEffects: false,
    resource: (i: { paymentId: string }) => `payment:${i.paymentId}`,
  },
  send_email: { sideEffects: true, resource: (i: { to: string }) => `mailto:${i.to}` },
  read_file: { sideEffects: false, resource: (i: { path: string }) => pathResource(i.path) },
  shell: { sideEffects: false, resource: (i: { command: string }) => shellResources(i.command) },
};
