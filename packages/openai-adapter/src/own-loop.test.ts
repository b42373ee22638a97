import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import { createClient, unansweredCallIds } from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => provider.reset());

function setUp() {
  const recovery = createRecovery({ runId: 'run-own' });
  const tools = recovery.tools({
    lookup: {
      inputSchema: z.object({ id: z.string() }),
      execute: (input) => ({ id: input.id, ok: true }),
    },
  });
  return { recovery, tools };
}

it('executeResponseCalls answers one response for a hand-written Responses loop', async () => {
  const { recovery, tools } = setUp();
  const client = createClient(provider);
  provider.reset([[toolCall('lookup', { id: 'a' }), toolCall('lookup', { id: 7 })], text('fine')]);
  const input: ResponseInputItem[] = [{ role: 'user', content: 'look up a' }];
  const answer = await recovery.runtime.callModel(() =>
    client.responses.create({ model: 'gpt-4o', input, tools: tools.responses }),
  );
  if (!answer.ok) throw new Error('model call failed');
  const turn = await recovery.executeResponseCalls(tools, answer.value.output);
  input.push(...(answer.value.output as ResponseInputItem[]), ...turn.items);

  expect(turn.stop).toBe(false);
  expect(turn.items[0]).toEqual({
    type: 'function_call_output',
    call_id: 'call_1',
    output: '{"id":"a","ok":true}',
  });
  expect(JSON.parse(turn.items[1]!.output as string)).toMatchObject({ invalid_field: 'id' });
  expect(turn.guidance).toContain('field "id"');
  expect(unansweredCallIds(input)).toEqual([]);
  const last = await client.responses.create({ model: 'gpt-4o', input, tools: tools.responses });
  expect(last.output_text).toBe('fine');
});

it('executeChatToolCalls answers one assistant message for a hand-written Chat loop', async () => {
  const { recovery, tools } = setUp();
  const client = createClient(provider);
  provider.reset([toolCall('lookup', { id: 'b' }), text('fine')]);
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'look up b' }];
  const completion = await client.chat.completions.create({
    model: 'gpt-4o',
    messages,
    tools: tools.chat,
  });
  const message = completion.choices[0]!.message;
  const turn = await recovery.executeChatToolCalls(tools, message);
  messages.push(message, ...turn.messages);

  expect(turn).toMatchObject({ stop: false, messages: [{ role: 'tool', tool_call_id: 'call_1' }] });
  expect(unansweredCallIds(messages)).toEqual([]);
  expect(recovery.outcome().status).toBe('COMPLETED');
});
