// The other halves of issue 6: the default onDenial 'stop', tools that declare no resource,
// static scope rules, and what the model is told when a route is closed.
import { createOpenAI } from '@ai-sdk/openai';
import { createRecovery } from '@recourse/ai-sdk';
import type { RecoveryOptions } from '@recourse/core';
import { type ScriptEntry, text, toolCall } from '@recourse/testing';
import { generateText, isStepCount } from 'ai';
import { describe, expect, it } from 'vitest';
import { readContract } from './run-scenario.js';
import { createSandboxTools, sandboxPolicies } from './sandbox-tools.js';
import { toAiSdkTools } from './sdk-tools.js';
import { useSandboxServer } from './use-sandbox-server.js';

const { provider, downstream } = useSandboxServer();
const openai = createOpenAI({ baseURL: provider.baseURL, apiKey: 'test' });

const denied = toolCall('github_api', { repo: 'acme/secret', path: 'README.md' }, { id: 'deny' });

async function run(
  script: ScriptEntry[],
  options: Partial<RecoveryOptions> & { loop?: 'recourse' | 'plain'; api?: 'chat' | 'responses' },
) {
  provider.reset(script);
  const { tools, executed } = createSandboxTools();
  const { loop = 'recourse', api = 'chat', ...recoveryOptions } = options;
  const recovery = createRecovery({
    runId: 'red-team modes',
    policies: sandboxPolicies(tools),
    ...recoveryOptions,
  });
  const result = await generateText({
    model: api === 'chat' ? openai.chat('gpt-4o') : openai.responses('gpt-4o'),
    instructions: 'You are an engineering agent.',
    prompt: 'Read the repositories.',
    tools: recovery.tools(toAiSdkTools(tools)),
    ...(loop === 'recourse'
      ? { stopWhen: [isStepCount(10), recovery.stopWhen], prepareStep: recovery.prepareStep }
      : { stopWhen: isStepCount(10) }),
  });
  const output = (id: string) => provider.toolResults().find((r) => r.callId === id)?.output;
  return { result, executed, recovery, output };
}

describe("onDenial: 'stop' (the default)", () => {
  const later = [
    toolCall('github_api', { repo: 'acme/public', path: 'README.md' }, { id: 'other_repo' }),
    toolCall('shell', { command: 'echo hi' }, { id: 'harmless' }),
  ];

  it('ends the loop at the denial: nothing runs after it, the outcome is BLOCKED', async () => {
    const { result, executed, recovery } = await run([denied, later, text('done')], {});

    expect(result.steps).toHaveLength(1);
    expect(provider.requests).toHaveLength(1);
    expect(provider.remaining()).toBe(2);
    expect(executed).toEqual(['deny']);
    expect(recovery.outcome()).toMatchObject({
      status: 'BLOCKED',
      reason: 'AUTHORIZATION_DENIED',
      next_possible_action: 'request authorized operator',
    });
  });

  it('without recovery.stopWhen, every later call, to any resource, is refused unexecuted', async () => {
    // The loop goes on (no stopWhen), so the model receives an answer for each later call.
    const { executed, recovery, output } = await run([denied, later, text('done')], {
      loop: 'plain',
      nextPossibleAction: 'ask #platform-access for read access to acme/secret',
    });

    expect(executed).toEqual(['deny']);
    for (const id of ['other_repo', 'harmless']) {
      expect(readContract(output(id))).toMatchObject({
        status: 'BLOCKED',
        code: 'RUN_STOPPED',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
        guidance: expect.stringContaining('This route is closed'),
        next_possible_action: 'ask #platform-access for read access to acme/secret',
      });
    }
    expect(recovery.outcome().status).toBe('BLOCKED');
  });
});

describe('a tool without a resource function', () => {
  it('is refused after a denial, since it may touch the denied resource', async () => {
    const notes = toolCall('read_notes', {}, { id: 'notes' });
    const { executed, output } = await run([denied, notes, text('done')], {
      onDenial: 'continue',
      loop: 'plain',
    });

    expect(executed).toEqual(['deny']);
    expect(readContract(output('notes'))).toMatchObject({
      status: 'BLOCKED',
      tool: 'read_notes',
      code: 'DENIED_EARLIER',
    });
  });

  it('is withdrawn from the model by prepareStep, and a call to it anyway does not run', async () => {
    const notes = toolCall('read_notes', {}, { id: 'notes' });
    const { executed, output } = await run([denied, notes, text('done')], {
      onDenial: 'continue',
      api: 'responses',
    });

    const offered = (index: number) =>
      ((provider.requests[index]?.body.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(offered(0)).toContain('read_notes');
    expect(offered(1)).not.toContain('read_notes');
    expect(offered(1)).toContain('github_api');
    expect(executed).toEqual(['deny']);
    expect(output('notes')).toBeDefined();
  });
});

describe('static scope', () => {
  const scope = {
    allow: ['https://github.com/acme/**', 'file:///srv/data/public/**'],
    deny: ['https://github.com/acme/secret'],
  };

  it('refuses calls outside the scope before they run, with a BLOCKED contract', async () => {
    const { executed, output, recovery } = await run(
      [
        [
          toolCall('github_api', { repo: 'Acme/Secret', path: 'x' }, { id: 'deny_rule' }),
          toolCall('shell', { command: 'gh repo clone acme/secret' }, { id: 'deny_rule_shell' }),
          toolCall('http_get', { url: 'https://example.com/' }, { id: 'not_allowed' }),
          toolCall('read_file', { path: '/srv/data/secrets.bak/x' }, { id: 'file_not_allowed' }),
          toolCall('github_api', { repo: 'acme/public', path: 'x' }, { id: 'allowed' }),
          toolCall('read_file', { path: '/srv/data/public/readme.md' }, { id: 'allowed_file' }),
        ],
        text('done'),
      ],
      { scope, onDenial: 'continue' },
    );

    expect(executed.sort()).toEqual(['allowed', 'allowed_file']);
    const codes = Object.fromEntries(
      ['deny_rule', 'deny_rule_shell', 'not_allowed', 'file_not_allowed'].map((id) => {
        const contract = readContract(output(id));
        expect(contract).toMatchObject({ status: 'BLOCKED', retry_same_action: false });
        return [id, contract?.code];
      }),
    );
    expect(codes).toEqual({
      deny_rule: 'SCOPE_DENY',
      deny_rule_shell: 'SCOPE_DENY',
      not_allowed: 'SCOPE_NOT_ALLOWED',
      file_not_allowed: 'SCOPE_NOT_ALLOWED',
    });
    // Nothing outside the scope reached the downstream.
    expect(downstream.requests).toEqual([
      'GET https://api.github.com/repos/acme/public/contents/x',
    ]);
    expect(recovery.outcome().status).toBe('PARTIAL_RESULT');
  });

  it("with the default 'stop', a call outside the scope ends the run BLOCKED", async () => {
    const { executed, recovery, result } = await run(
      [toolCall('http_get', { url: 'https://example.com/' }, { id: 'out' }), text('done')],
      { scope },
    );

    expect(executed).toEqual([]);
    expect(result.steps).toHaveLength(1);
    expect(recovery.outcome()).toMatchObject({ status: 'BLOCKED', reason: 'AUTHORIZATION_DENIED' });
  });
});

describe('what the model is told', () => {
  it('says plainly that the route and every other route are closed, and never suggests one', async () => {
    const bypass = toolCall(
      'shell',
      { command: 'git clone git@github.com:acme/secret.git' },
      { id: 'bypass' },
    );
    await run([denied, bypass, text('done')], { onDenial: 'continue', api: 'responses' });

    // Request 2 carries the denial's result, request 3 the blocked bypass's.
    const bodies = provider.requests.map((r) => r.rawBody);
    expect(bodies).toHaveLength(3);
    for (const id of ['deny', 'bypass']) {
      const result = provider.toolResults().find((r) => r.callId === id);
      const contract = readContract(result?.output);
      expect(contract).toMatchObject({
        status: 'BLOCKED',
        failure_class: 'AUTHORIZATION',
        recommended_recovery: 'ABORT',
        retry_same_action: false,
      });
      const guidance = String(contract?.guidance);
      expect(guidance).toContain('This route is closed, and so is every other route');
      expect(guidance).toContain('do not try another tool, command, endpoint or credential');
      expect(invitesAnotherRoute(guidance)).toBe(false);
      // The text reached the provider as the tool result of that call.
      expect(bodies[result!.requestIndex]).toContain('This route is closed');
    }
    // The step after a block also carries the note beside the caller's instructions.
    // (@ai-sdk/openai sends ai@7's `instructions` as the system message of `input`.)
    const input = provider.requests[2]?.body.input as { role?: string; content?: unknown }[];
    const instructions = String(input.find((item) => item.role === 'system')?.content);
    expect(instructions).toContain('You are an engineering agent.');
    expect(instructions).toContain('This route is closed');
    expect(invitesAnotherRoute(instructions)).toBe(false);
    // No stack trace or raw error object reached the model.
    expect(bodies.join('\n')).not.toMatch(/\n\s+at |HTTPError|Error: Request failed/);
  });
});

/** True when the text suggests a way around: "try X", "instead", "alternatively", ... */
function invitesAnotherRoute(text: string): boolean {
  const withoutProhibitions = text.replace(/do not try[^.:]*/gi, '');
  return /\btry\b|instead|alternativ|workaround|another way|different (tool|route|credential)/i.test(
    withoutProhibitions,
  );
}
