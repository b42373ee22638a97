import { callService, text, toolCall } from '@recourse/testing';
import { type AgentMiddleware, createAgent, tool, toolRetryMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { githubTools } from '../test-support/github.js';
import { useScriptedProvider } from '../test-support/harness.js';
import { scriptedEndpoint } from '../test-support/service.js';

// The scenarios of failures.test.ts with LangChain's own defaults instead of recourse:
// `toolRetryMiddleware()` (every error retried twice in place, then the error told to the
// model), only its waits shortened. LangChain's middleware types reject
// exactOptionalPropertyTypes, hence the cast.
const { provider, model, use } = useScriptedProvider();
const retries = () => toolRetryMiddleware({ initialDelayMs: 1 }) as unknown as AgentMiddleware;
const prompt = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('without recourse: toolRetryMiddleware (the baselines)', () => {
  it('a 403 is retried, then the shell clone of the same repository runs', async () => {
    const github = scriptedEndpoint('get', 'https://api.github.test/repos/*', [403, 403, 403]);
    use(github.handler);
    provider.reset([
      toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }),
      toolCall('shell', { command: 'git clone git@github.com:acme/secret.git' }),
      text('cloned it instead'),
    ]);
    const executed: string[] = [];
    const agent = createAgent({
      model: model(),
      tools: githubTools(executed),
      middleware: [retries()],
    });

    await agent.invoke(prompt('Summarise the README of acme/secret'));

    console.log(
      `403 then a shell bypass, toolRetryMiddleware: ${github.requests.length} requests to the denied API, bypass ran: ${executed.includes('shell git clone git@github.com:acme/secret.git')}`,
    );
    expect(github.requests).toHaveLength(3);
    expect(executed.at(-1)).toBe('shell git clone git@github.com:acme/secret.git');
  });

  it('the same 422 refund is sent again and again: nothing stops the loop', async () => {
    const refunds = scriptedEndpoint('post', 'https://payments.test/refunds', Array(12).fill(422));
    use(refunds.handler);
    const same = toolCall('refund_payment', { paymentId: 'p-42', amount: 1000 });
    provider.reset([same, same, same, same, text('gave up')]);
    const refund = tool(
      async (input) => callService('POST', 'https://payments.test/refunds', input),
      {
        name: 'refund_payment',
        description: 'Refund a payment',
        schema: z.object({ paymentId: z.string(), amount: z.number() }),
      },
    );
    const agent = createAgent({ model: model(), tools: [refund], middleware: [retries()] });

    await agent.invoke(prompt('Refund 1000 on p-42'));

    console.log(
      `a poison refund, toolRetryMiddleware: ${refunds.requests.length} refund requests (recourse: 3, then the run stops)`,
    );
    expect(refunds.requests).toHaveLength(12); // 4 model calls × 3 attempts, none different
    expect(provider.requests).toHaveLength(5);
  });
});
