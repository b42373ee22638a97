import { createServer, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ProviderRequest } from './provider-request.js';
import { type ProviderServer, startProviderServer } from './provider-server.js';
import { text, toolCall } from './script-steps.js';
import { createScriptedProvider } from './scripted-provider.js';

// A local test server a tool calls: it counts the requests that reached it. It listens on
// every interface, so that it can also stand for a host elsewhere on the network (this
// machine's own non-loopback address).
let local: Server;
let localURL = '';
let networkURL: string | undefined;
let reached = 0;
beforeAll(async () => {
  local = createServer((_request, response) => {
    reached++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ sku: 'A-1', inStock: 3 }));
  });
  await new Promise<void>((resolve) => local.listen(0, '0.0.0.0', resolve));
  const address = local.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  localURL = `http://127.0.0.1:${address.port}/stock/A-1`;
  const external = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal);
  if (external) networkURL = `http://${external.address}:${address.port}/stock/A-1`;
});
afterAll(() => local.close());

let running: ProviderServer | undefined;
afterEach(() => {
  running?.close();
  running = undefined;
  reached = 0;
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );

describe('startProviderServer', () => {
  it('lets a tool call a local test server, in the real AI SDK loop', async () => {
    const provider = createScriptedProvider({
      script: [
        toolCall('check_stock', { sku: 'A-1' }),
        (request: ProviderRequest) => text(`stock: ${request.toolResults[0]?.output}`),
      ],
    });
    running = startProviderServer(provider);
    const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
    const result = await generateText({
      model: openai.chat('gpt-4o'),
      prompt: 'Is A-1 in stock?',
      tools: {
        check_stock: tool({
          inputSchema: z.object({ sku: z.string() }),
          execute: async () => (await fetch(localURL)).json(),
        }),
      },
      stopWhen: isStepCount(3),
    });
    expect(reached).toBe(1);
    expect(result.text).toBe('stock: {"sku":"A-1","inStock":3}');
  });

  it("still fails a request to the provider's host that no handler matches", async () => {
    const provider = createScriptedProvider();
    running = startProviderServer(provider);
    expect(await failure(fetch(`${provider.baseURL}/models`))).not.toBe('answered');
  });

  it('fails a request to another host on the network, so a test cannot reach it by accident', async (context) => {
    if (networkURL === undefined) context.skip(); // no non-loopback interface here
    running = startProviderServer(createScriptedProvider());
    expect(await failure(fetch(networkURL ?? ''))).not.toBe('answered');
    expect(reached).toBe(0);
    running.close();
    running = startProviderServer(createScriptedProvider(), { otherHosts: 'bypass' });
    expect(await failure(fetch(networkURL ?? ''))).toBe('answered');
    expect(reached).toBe(1);
  });

  it("with otherHosts: 'error', fails the local server too: it is never reached", async () => {
    running = startProviderServer(createScriptedProvider(), { otherHosts: 'error' });
    expect(await failure(fetch(localURL))).not.toBe('answered');
    expect(reached).toBe(0);
  });

  it('rejects an unknown otherHosts, naming it', () => {
    expect(() =>
      startProviderServer(createScriptedProvider(), {
        otherHosts: 'everything' as unknown as 'local',
      }),
    ).toThrow(/otherHosts/);
  });
});
