import { describe, expect, it } from 'vitest';
import type {
  AdapterContractDriver,
  AdapterContractRun,
  ContractCall,
  ContractPlay,
  ContractTool,
} from '../adapter/adapter-driver.js';
import type { RecoveryContract } from '../contract/recovery-contract.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { callContext } from '../runtime/call-context.js';
import type { RecoveryOptions, ToolPolicy } from '../runtime/options/recovery-options.js';
import { urlResource } from '../scope/url-resource.js';
import { shellResources } from '../shell/shell-resources.js';
import { createFakeClock, type FakeClock } from './fake-clock.js';

export type {
  AdapterContractDriver,
  AdapterContractRun,
  ContractCall,
  ContractPlay,
  ContractTool,
} from '../adapter/adapter-driver.js';

/**
 * The behaviour every adapter must have, through its SDK's real loop: call it from the
 * adapter's test file with a driver that builds a run (see `AdapterContractDriver`).
 * Every test is on a fake clock; the whole suite takes a few seconds.
 */
export function describeAdapterContract(name: string, driver: AdapterContractDriver): void {
  describe(`adapter contract: ${name}`, () => {
    it('is transparent on success: the model reads the value, the tool sees its call context', async () => {
      const t = setup(driver, { lookup: { sideEffects: false } });
      const played = await t.play([[call('c1', 'lookup', { id: 'a-1' })]]);
      expect(answerJson(played, 'c1')).toEqual({ id: 'a-1', status: 'ok' });
      expect(t.seen).toEqual([
        { tool: 'lookup', toolCallId: 'c1', attempt: 1, key: expect.stringContaining('lookup') },
      ]);
      const outcome = t.run.runtime.outcome();
      expect(outcome.status).toBe('COMPLETED');
      expect(outcome.recoveries ?? []).toEqual([]);
    });

    it('retries a read that got a 503 inside the call: the model sees only the value', async () => {
      const t = setup(driver, { lookup: { sideEffects: false } });
      t.failures.lookup = [httpFailure(503)];
      const played = await t.play([[call('c1', 'lookup', { id: 'a-1' })]]);
      expect(answerJson(played, 'c1')).toEqual({ id: 'a-1', status: 'ok' });
      expect(t.seen.map((s) => s.attempt)).toEqual([1, 2]);
      expect(new Set(t.seen.map((s) => s.key)).size).toBe(1);
      expect(t.clock.sleeps).toHaveLength(1);
      const outcome = t.run.runtime.outcome();
      expect(outcome.status).toBe('COMPLETED');
      expect(outcome.recoveries).toMatchObject([{ tool: 'lookup', action: 'RETRY', attempts: 2 }]);
    });

    it('reconciles a write whose response was lost: applied once, the repeat answered from the ledger', async () => {
      const t = setup(driver, {
        refund: {
          sideEffects: true,
          reconcile: (_input, { idempotencyKey }) =>
            t.applied.includes(idempotencyKey)
              ? { happened: true, result: { refund: 'r-1' } }
              : { happened: false },
        },
      });
      t.loseResponse.add('refund');
      const played = await t.play([
        [call('c1', 'refund', { payment: 'p-42' })],
        [call('c2', 'refund', { payment: 'p-42' })],
      ]);
      expect(answerJson(played, 'c1')).toEqual({ refund: 'r-1' });
      expect(answerJson(played, 'c2')).toEqual({ refund: 'r-1' });
      expect(t.applied).toHaveLength(1);
      expect(t.seen).toHaveLength(1);
      const outcome = t.run.runtime.outcome();
      expect(outcome.status).toBe('COMPLETED');
      expect(outcome.recoveries).toMatchObject([{ tool: 'refund', action: 'RECONCILE' }]);
    });

    it('answers a 422 with a repair contract, and the repaired call runs', async () => {
      const t = setup(driver, { update_email: { sideEffects: false } });
      t.failures.update_email = [httpFailure(422)];
      const played = await t.play([
        [call('c1', 'update_email', { email: 'ada' })],
        [call('c2', 'update_email', { email: 'ada@example.com' })],
      ]);
      expect(answerJson(played, 'c1')).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'REPAIR',
        retry_same_action: false,
      });
      expect(answerJson(played, 'c2')).toEqual({ email: 'ada@example.com', status: 'ok' });
      expect(t.run.runtime.outcome().status).toBe('COMPLETED');
    });

    it('a 403 stops the run (onDenial: stop): the loop ends, nothing later runs', async () => {
      const t = setup(driver, repositoryTools);
      t.failures.github_api = [httpFailure(403)];
      const played = await t.play([
        [call('c1', 'github_api', { repo: 'acme/secret' })],
        [call('c2', 'shell', { command: 'git clone https://github.com/acme/secret' })],
      ]);
      expect(answerJson(played, 'c1')).toMatchObject({
        failure_class: 'AUTHORIZATION',
        retry_same_action: false,
      });
      expect(played.answers.has('c2')).toBe(false);
      expect(played.modelRequests).toBe(1);
      expect(t.seen.map((s) => s.tool)).toEqual(['github_api']);
      expect(t.run.runtime.outcome().status).toBe('BLOCKED');
    });

    it('a denial blocks the bypass by another route (onDenial: continue); other resources still run', async () => {
      const t = setup(driver, repositoryTools, { onDenial: 'continue' });
      t.failures.github_api = [httpFailure(403)];
      const played = await t.play([
        [call('c1', 'github_api', { repo: 'acme/secret' })],
        [call('c2', 'shell', { command: 'git clone https://github.com/ACME/Secret' })],
        [call('c3', 'github_api', { repo: 'acme/public' })],
      ]);
      expect(answerJson(played, 'c2')).toMatchObject({
        failure_class: 'AUTHORIZATION',
        retry_same_action: false,
      });
      expect(answerJson(played, 'c3')).toEqual({ repo: 'acme/public', status: 'ok' });
      expect(t.seen.map((s) => s.toolCallId)).toEqual(['c1', 'c3']);
      const blocked = t.run.runtime.outcome().blocked ?? [];
      expect(blocked.map((entry) => entry.resource)).toContain('https://github.com/acme/secret');
    });

    it('poison: the same validation failure past the repair budget ends the run', async () => {
      const t = setup(driver, { update_email: { sideEffects: false } }, { repairBudget: 2 });
      t.failures.update_email = [httpFailure(422), httpFailure(422), httpFailure(422)];
      const same = { email: 'ada' };
      const played = await t.play([
        [call('c1', 'update_email', same)],
        [call('c2', 'update_email', same)],
        [call('c3', 'update_email', same)],
        [call('c4', 'update_email', same)],
      ]);
      expect(answerJson(played, 'c2')).toMatchObject({ recommended_recovery: 'REPAIR' });
      expect(answerJson(played, 'c3')).toMatchObject({
        failure_class: 'VALIDATION',
        recommended_recovery: 'ABORT',
        code: 'POISON',
        retry_same_action: false,
      });
      expect(played.answers.has('c4')).toBe(false);
      expect(t.run.runtime.isStopped()).toBe(true);
      expect(t.run.runtime.outcome().status).not.toBe('COMPLETED');
    });

    it('one turn: a write waits for the earlier calls of its turn; after a denial it never runs', async () => {
      const t = setup(driver, { ...repositoryTools, refund: { sideEffects: true } });
      t.failures.github_api = [httpFailure(403)];
      const played = await t.play([
        [
          call('c1', 'github_api', { repo: 'acme/secret' }),
          call('c2', 'refund', { payment: 'p-1' }),
        ],
      ]);
      expect(answerJson(played, 'c2')).toMatchObject({ retry_same_action: false });
      expect(t.applied).toEqual([]);
      expect(t.seen.map((s) => s.tool)).toEqual(['github_api']);
      expect(t.run.runtime.outcome().status).toBe('BLOCKED');
    });

    it('one turn: a write starts only once the earlier read of its turn has settled', async () => {
      const t = setup(driver, { lookup: { sideEffects: false }, refund: { sideEffects: true } });
      t.slow.add('lookup');
      await t.play([
        [call('c1', 'lookup', { id: 'a-1' }), call('c2', 'refund', { payment: 'p-1' })],
      ]);
      expect(t.events).toEqual(['lookup start', 'lookup end', 'refund start', 'refund end']);
    });

    it('one turn (onDenial: continue): a later call reaching the denied resource is refused, an unrelated read runs', async () => {
      const t = setup(driver, repositoryTools, { onDenial: 'continue' });
      t.failures.github_api = [httpFailure(403)];
      const played = await t.play([
        [
          call('c1', 'github_api', { repo: 'acme/secret' }),
          call('c2', 'shell', { command: 'git clone https://github.com/ACME/Secret' }),
          call('c3', 'github_api', { repo: 'acme/public' }),
        ],
      ]);
      expect(answerJson(played, 'c2')).toMatchObject({
        failure_class: 'AUTHORIZATION',
        retry_same_action: false,
      });
      expect(answerJson(played, 'c3')).toEqual({ repo: 'acme/public', status: 'ok' });
      expect(t.seen.map((s) => s.toolCallId).sort()).toEqual(['c1', 'c3']);
    });

    it('one turn: unrelated reads run side by side', async () => {
      const t = setup(driver, {
        lookup: {
          sideEffects: false,
          resource: (input) => `record:${(input as { id: string }).id}`,
        },
      });
      t.slow.add('lookup');
      const played = await t.play([
        [call('c1', 'lookup', { id: 'a-1' }), call('c2', 'lookup', { id: 'a-2' })],
      ]);
      expect(t.events.slice(0, 2)).toEqual(['lookup start', 'lookup start']);
      expect(answerJson(played, 'c2')).toEqual({ id: 'a-2', status: 'ok' });
    });

    it('an approval opens a call the scope refused; the repeat runs', async () => {
      const t = setup(driver, repositoryTools, {
        onDenial: 'continue',
        scope: { deny: ['https://github.com/acme/vault'] },
      });
      const asked = call('c1', 'github_api', { repo: 'acme/vault' });
      const first = await t.play([[asked]]);
      expect(answerJson(first, 'c1')).toMatchObject({ retry_same_action: false });
      expect(t.seen).toEqual([]);
      const { runtime } = t.run;
      const request = await runtime.requestApproval({
        toolName: asked.name,
        toolCallId: asked.id,
        input: asked.input,
      });
      expect(request?.resources).toEqual(['https://github.com/acme/vault']);
      const answer = { toolName: asked.name, toolCallId: asked.id, input: asked.input };
      await runtime.resolveApproval({ ...answer, approved: true, decidedBy: 'operator-1' });
      const second = await t.play([[call('c2', 'github_api', { repo: 'acme/vault' })]]);
      expect(answerJson(second, 'c2')).toEqual({ repo: 'acme/vault', status: 'ok' });
      expect(t.seen.map((s) => s.toolCallId)).toEqual(['c2']);
    });
  });
}

const repositoryTools: Record<string, ToolPolicy> = {
  github_api: {
    sideEffects: false,
    resource: (input) => urlResource(`https://github.com/${(input as { repo: string }).repo}`),
  },
  shell: {
    sideEffects: false,
    resource: (input) => shellResources((input as { command: string }).command),
  },
};

/** The one string input of each tool. */
const inputField: Record<string, string> = {
  lookup: 'id',
  refund: 'payment',
  update_email: 'email',
  github_api: 'repo',
  shell: 'command',
};

interface Seen {
  tool: string;
  toolCallId: string;
  attempt: number;
  key: string;
}

interface Harness {
  run: AdapterContractRun;
  clock: FakeClock;
  /** Every execution of a tool, with what its call context said. */
  seen: Seen[];
  /** Errors each tool throws on its next executions, in order. */
  failures: Record<string, Error[]>;
  /** Writes that land, then time out. */
  loseResponse: Set<string>;
  /** Idempotency keys of the writes that landed downstream. */
  applied: string[];
  /** Tools whose executions take a while (many event-loop turns, no timer). */
  slow: Set<string>;
  /** `<tool> start` and `<tool> end` of every execution, in order. */
  events: string[];
  play(turns: readonly (readonly ContractCall[])[]): Promise<ContractPlay>;
}

function setup(
  driver: AdapterContractDriver,
  policies: Record<string, ToolPolicy>,
  extra: Partial<RecoveryOptions> = {},
): Harness {
  const clock = createFakeClock(1_767_225_600_000);
  const seen: Seen[] = [];
  const failures: Record<string, Error[]> = {};
  const loseResponse = new Set<string>();
  const applied: string[] = [];
  const slow = new Set<string>();
  const events: string[] = [];
  const tools: Record<string, ContractTool> = {};
  for (const toolName of Object.keys(policies)) {
    const property = inputField[toolName] ?? 'id';
    tools[toolName] = {
      description: `The ${toolName} tool of the adapter contract`,
      inputSchema: {
        type: 'object',
        properties: { [property]: { type: 'string' } },
        required: [property],
        additionalProperties: false,
      },
      execute: async (input) => {
        const context = callContext();
        seen.push({
          tool: toolName,
          toolCallId: context.toolCallId,
          attempt: context.attempt,
          key: context.idempotencyKey,
        });
        events.push(`${toolName} start`);
        try {
          if (slow.has(toolName)) await eventLoopTurns(50);
          const failure = failures[toolName]?.shift();
          if (failure) throw failure;
          if (policies[toolName]?.sideEffects === true) {
            applied.push(context.idempotencyKey);
            if (loseResponse.delete(toolName))
              throw new DOMException('The operation timed out.', 'TimeoutError');
            return { refund: 'r-1' };
          }
          return { ...input, status: 'ok' };
        } finally {
          events.push(`${toolName} end`);
        }
      },
    };
  }
  const options: RecoveryOptions = {
    runId: `contract-${Math.floor(Math.random() * 36 ** 6).toString(36)}`,
    ledger: new MemoryLedger({ clock }),
    clock,
    policies,
    ...extra,
  };
  const run = driver.start(options, tools);
  return {
    run,
    clock,
    seen,
    failures,
    loseResponse,
    applied,
    slow,
    events,
    play: (turns) => driveClock(clock, run.play(turns)),
  };
}

function call(id: string, name: string, input: Record<string, string>): ContractCall {
  return { id, name, input };
}

/** The answer the model got for a call, parsed: a value's JSON or the recovery contract. */
function answerJson(played: ContractPlay, id: string): Record<string, unknown> {
  const text = played.answers.get(id);
  if (text === undefined) throw new Error(`the model got no answer for ${id}`);
  return JSON.parse(text) as Record<string, unknown> & Partial<RecoveryContract>;
}

/** A failed HTTP call as fetch wrappers (ky, ofetch, ...) throw it: a real `Response` on the error. */
function httpFailure(status: number): Error {
  const response = new Response(null, { status });
  return Object.assign(new Error(`Request failed with status ${status}`), { response });
}

/** Lets other work (another call of the turn, the SDK) go on for `count` turns of the event loop. */
async function eventLoopTurns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Wakes the fake clock's sleepers until `work` settles, letting real I/O run in between. */
async function driveClock<T>(clock: FakeClock, work: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = work.finally(() => {
    settled = true;
  });
  while (!settled) {
    if (!(await clock.next())) await new Promise((resolve) => setImmediate(resolve));
  }
  return tracked;
}
