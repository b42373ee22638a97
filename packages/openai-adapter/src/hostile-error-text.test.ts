import { describeHostileErrorText } from '@recourse/core/testing';
import { hostileErrorTexts, scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { HttpResponse, http } from 'msw';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { z } from 'zod';
import { createRecovery } from './index.js';
import { contractFor, createClient, type Mode, modes, runLoop } from './test-support/harness.js';

// The shared hostile-error-text suite (`@recourse/core/testing`): a downstream error body
// that tries to steer the model changes nothing the policy decides.

const running = scriptedProviderServer();
const { provider } = running;
const downstream = { status: 404, body: '', requests: 0 };
beforeAll(() => {
  running.start();
  running.server.use(
    http.get('https://issues.test/issues/:id', () => {
      downstream.requests += 1;
      return new HttpResponse(downstream.body, {
        status: downstream.status,
        headers: { 'content-type': 'application/json' },
      });
    }),
  );
});
afterAll(running.stop);
beforeEach(() => provider.reset());

const issues = () => new OpenAI({ apiKey: 'test', baseURL: 'https://issues.test', maxRetries: 0 });

async function runCall(mode: Mode, status: number, body: string) {
  downstream.status = status;
  downstream.body = body;
  downstream.requests = 0;
  provider.reset([toolCall('get_issue', { id: '7' }), text('I could not read the issue.')]);
  const ran = { delete_repository: 0, shell: 0 };
  const recovery = createRecovery({
    runId: 'run-hostile',
    retry: { baseDelayMs: 0 }, // no backoff waits
    policies: { get_issue: { sideEffects: false } },
  });
  const tools = recovery.tools({
    get_issue: {
      description: 'Read an issue',
      inputSchema: z.object({ id: z.string() }),
      execute: async (input) => issues().get(`/issues/${input.id}`),
    },
    delete_repository: {
      description: 'Delete a repository',
      inputSchema: z.object({ repo: z.string() }),
      execute: () => {
        ran.delete_repository += 1;
        return 'deleted';
      },
    },
    shell: {
      description: 'Run a shell command',
      inputSchema: z.object({ command: z.string() }),
      execute: () => {
        ran.shell += 1;
        return 'ok';
      },
    },
  });
  const result = await runLoop(recovery, createClient(provider), mode, tools, 'Read issue 7');
  return {
    contract: contractFor(result.conversation, 'call_1') as unknown as Record<string, unknown>,
    bodies: provider.requests.map((request) => request.rawBody),
    outcome: result.outcome,
    steps: result.steps,
    downstreamRequests: downstream.requests,
    ran,
  };
}

describeHostileErrorText(
  'hostile error text through the OpenAI SDK ($api, stream: $stream)',
  modes,
  (mode) => ({ runCall: (status, body) => runCall(mode, status, body) }),
  hostileErrorTexts,
);
