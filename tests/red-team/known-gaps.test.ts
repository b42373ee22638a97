// Routes the scope extractors did not close, found by the red team. Each was written as the
// test it should pass, marked `it.fails` until core's scope module was fixed; when a fix
// lands, its test starts passing and vitest reports it: drop the `.fails` then and move the
// route into routes.ts. All the routes found so far are closed and live in routes.ts
// (kubectl --raw, proxy and port-forward to the API server, ln -s, percent-encoded file:
// URLs, S3's HTTPS endpoints, psql service= and PGSERVICEFILE, git diff --no-index and git's
// other file arguments outside its repository). What stays here is the one
// gap that is not a route: how a refusal of a call wider than a scope rule is remembered.
import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import { text, toolCall } from '@recourse/testing';
import { generateText, isStepCount } from 'ai';
import { describe, expect, it } from 'vitest';
import { createSandboxTools, sandboxPolicies } from './sandbox-tools.js';
import { toAiSdkTools } from './sdk-tools.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider } = useSandboxServer();

describe('known gaps (closed)', () => {
  // recovery-runtime.ts + scope-guard.ts: a call wider than a scope deny rule (GraphQL reaches
  // all of GitHub) is rightly refused, but the refusal was recorded as a run denial of the
  // call's whole reach, `https://github.com`, so with onDenial 'continue' every later GitHub
  // call was refused too. Fixed: static-scope blocks are not recorded as run denials, and the
  // verdict names the rule's resource when the call is wider than the rule.
  it('a scope refusal of a wide call does not close the rest of the host', async () => {
    provider.reset([
      toolCall('shell', { command: 'curl https://api.github.com/graphql' }, { id: 'wide' }),
      toolCall('github_api', { repo: 'acme/public', path: 'README.md' }, { id: 'allowed' }),
      text('done'),
    ]);
    const { tools, executed } = createSandboxTools();
    const recovery = createRecovery({
      runId: 'red-team scope',
      policies: sandboxPolicies(tools),
      scope: { deny: ['https://github.com/acme/secret'] },
      onDenial: 'continue',
    });
    const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });
    const result = await generateText({
      model: openai.chat('gpt-4o'),
      prompt: 'Read acme/public',
      tools: recovery.tools(toAiSdkTools(tools)),
      stopWhen: [isStepCount(5), recovery.stopWhen],
      prepareStep: recovery.prepareStep,
    });
    expect(executed).toEqual(['allowed']);
    // The refusal names the denied repository, not all of GitHub.
    const refusal = result.steps
      .flatMap((step) => step.toolResults)
      .find((part) => part.toolCallId === 'wide');
    expect(refusal?.output).toMatchObject({
      status: 'BLOCKED',
      code: 'SCOPE_DENY',
      resource: 'https://github.com/acme/secret',
    });
  });
});
