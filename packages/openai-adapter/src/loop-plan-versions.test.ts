// The shared plan-versions suite (`@recourse/core/testing`) through the real `openai` client
// against a scripted provider, in every loop mode.
import { describePlanVersions } from '@recourse/core/testing';
import { scriptedProviderServer, text, toolCall } from '@recourse/testing';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { z } from 'zod';
import {
  createIncidentShop,
  incidentPolicies,
} from '../../ai-sdk-adapter/test-support/incident-shop.js';
import { createRecovery } from './index.js';
import {
  contractFor,
  createClient,
  guidanceSent,
  modes,
  outputFor,
  runLoop,
  unansweredInRun,
} from './test-support/harness.js';

const running = scriptedProviderServer();
const { provider } = running;
beforeAll(running.start);
afterAll(running.stop);
beforeEach(() => running.reset());

describePlanVersions('plan versions in the loop ($api, stream: $stream)', modes, (mode) => ({
  // A Chat conversation keeps each step's system message in its history.
  guidanceLingers: mode.api === 'chat',
  // Strict schemas: the model sends an unset field as null.
  checkout: { suite: 'checkout', serial: null },
  async run(turns, options, prompt, maxSteps) {
    const shop = createIncidentShop();
    running.server.use(...shop.handlers);
    provider.reset(
      turns.map((turn) =>
        typeof turn === 'string' ? text(turn) : turn.map((c) => toolCall(c.name, c.input)),
      ),
    );
    const recovery = createRecovery({ runId: 'run-op', ...options });
    const { execute } = shop;
    const tools = recovery.tools({
      find_deployments: {
        description: 'Deployments of a service since a time',
        inputSchema: z.object({ service: z.string(), since: z.string() }),
        execute: execute.find_deployments,
        policy: incidentPolicies.find_deployments,
      },
      get_dashboard: {
        inputSchema: z.object({ uid: z.string() }),
        execute: execute.get_dashboard,
        policy: incidentPolicies.get_dashboard,
      },
      query_metrics: {
        inputSchema: z.object({ q: z.string() }),
        execute: execute.query_metrics,
        policy: incidentPolicies.query_metrics,
      },
      run_tests: {
        inputSchema: z.object({ suite: z.string(), serial: z.boolean().nullable() }),
        execute: execute.run_tests,
        policy: incidentPolicies.run_tests,
      },
      read_fixture: {
        inputSchema: z.object({ name: z.string() }),
        execute: execute.read_fixture,
        policy: incidentPolicies.read_fixture,
      },
    });
    const result = await runLoop(recovery, createClient(provider), mode, tools, prompt, maxSteps);
    const output = (index: number) => outputFor(result.conversation, `call_${index + 1}`);
    return {
      requests: shop.requests,
      ciRuns: shop.ciRuns,
      fixtureReads: shop.fixtureReads,
      modelRequests: provider.requests.length,
      output,
      contract: (index) =>
        contractFor(result.conversation, `call_${index + 1}`) as unknown as Record<string, unknown>,
      guidance: (index) => guidanceSent(provider, index),
      outcome: result.outcome,
      text: result.text,
      unanswered: unansweredInRun(provider, result),
    };
  },
}));
