import { describe, expect, it } from 'vitest';
import type { Denial, PoisonedOperation } from '../ledger/ledger.js';
import type { LedgerContractHarness } from './ledger-contract.js';
import { describeWatchContract } from './ledger-contract-watch.js';

export function describeRunStateContract(harness: () => LedgerContractHarness): void {
  const run = (suffix: string) => `${harness().context.namespace}-${suffix}`;

  describe('repair counts', () => {
    it('counts per run and fingerprint, starting from 0', async () => {
      const { ledger } = harness();
      expect(await ledger.getRepairs(run('a'), 'fp1')).toBe(0);
      expect(await ledger.addRepair(run('a'), 'fp1')).toBe(1);
      expect(await ledger.addRepair(run('a'), 'fp1')).toBe(2);
      expect(await ledger.addRepair(run('a'), 'fp2')).toBe(1);
      expect(await ledger.addRepair(run('b'), 'fp1')).toBe(1);
      expect(await ledger.getRepairs(run('a'), 'fp1')).toBe(2);
      expect(await ledger.getRepairs(run('a'), 'fp2')).toBe(1);
      expect(await ledger.getRepairs(run('c'), 'fp1')).toBe(0);
    });

    it('does not mix up runs and fingerprints that concatenate alike', async () => {
      const { ledger } = harness();
      await ledger.addRepair(run('a:b'), 'c');
      expect(await ledger.getRepairs(run('a'), 'b:c')).toBe(0);
    });

    it('adds concurrent repairs exactly', async () => {
      const { ledger } = harness();
      const handles = await harness().handles();
      const values = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          handles[i % handles.length]!.addRepair(run('a'), 'fp'),
        ),
      );
      expect([...values].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      expect(await ledger.getRepairs(run('a'), 'fp')).toBe(50);
    });
  });

  describe('facts', () => {
    const denial = (resource: string, at: number, capability?: string): Denial => ({
      resource,
      ...(capability === undefined ? {} : { capability }),
      tool: 'github_api',
      reason: 'HTTP_403',
      at,
    });
    const poison = (operation: string, at: number): PoisonedOperation => ({
      operation,
      tool: 'extract',
      failureClass: 'VALIDATION',
      code: 'SCHEMA_MISMATCH',
      fingerprint: `fp-${operation}`,
      at,
    });

    it('lists a run’s facts of one kind oldest first, with every field', async () => {
      const { ledger, clock } = harness();
      const start = clock.now();
      expect((await ledger.listFacts(run('a'))).denial).toEqual([]);
      const facts = [
        denial('https://github.com/acme/infra', start, 'write'),
        denial('file:///etc/shadow', start + 5),
        denial('shell:rm', start + 10, 'exec'),
      ];
      for (const [index, fact] of facts.entries()) {
        expect(await ledger.addFact(run('a'), 'denial', `id-${index}`, fact)).toBe(true);
        await clock.advance(5);
      }
      expect((await ledger.listFacts(run('a'))).denial).toEqual(facts);
    });

    it('is idempotent per id and keeps the first record', async () => {
      const { ledger } = harness();
      expect(await ledger.addFact(run('a'), 'poison', 'op1', poison('op1', 1))).toBe(true);
      expect(
        await ledger.addFact(run('a'), 'poison', 'op1', { ...poison('op1', 2), code: 'OTHER' }),
      ).toBe(false);
      expect(await ledger.addFact(run('a'), 'poison', 'op2', poison('op2', 3))).toBe(true);
      expect((await ledger.listFacts(run('a'))).poison).toEqual([
        poison('op1', 1),
        poison('op2', 3),
      ]);
    });

    it('keeps runs and kinds apart, also under the same id', async () => {
      const { ledger } = harness();
      await ledger.addFact(run('a'), 'denial', 'x', denial('r1', 1));
      await ledger.addFact(run('b'), 'denial', 'x', denial('r2', 2));
      await ledger.addFact(run('a'), 'grant', 'x', { resource: 'r3', grantedBy: 'ops', at: 3 });
      await ledger.addFact(run('a'), 'escalation', 'x', {
        toolCallId: 'call_1',
        tool: 'shell',
        resources: ['r4', 'r5'],
        at: 4,
      });
      expect((await ledger.listFacts(run('a'))).denial).toEqual([denial('r1', 1)]);
      expect((await ledger.listFacts(run('b'))).denial).toEqual([denial('r2', 2)]);
      expect((await ledger.listFacts(run('a'))).grant).toEqual([
        { resource: 'r3', grantedBy: 'ops', at: 3 },
      ]);
      expect((await ledger.listFacts(run('a'))).escalation).toEqual([
        { toolCallId: 'call_1', tool: 'shell', resources: ['r4', 'r5'], at: 4 },
      ]);
      expect((await ledger.listFacts(run('a'))).poison).toEqual([]);
      expect((await ledger.listFacts(run('c'))).denial).toEqual([]);
    });

    it('returns copies: changing a listed fact changes nothing stored', async () => {
      const { ledger } = harness();
      const escalation = { toolCallId: 'c', tool: 't', resources: ['r1'], at: 1 };
      await ledger.addFact(run('a'), 'escalation', 'c', escalation);
      escalation.resources.push('added after');
      const listed = (await ledger.listFacts(run('a'))).escalation;
      listed[0]!.resources.push('r2');
      listed.push({ ...escalation, toolCallId: 'd' });
      expect((await ledger.listFacts(run('a'))).escalation).toEqual([
        { toolCallId: 'c', tool: 't', resources: ['r1'], at: 1 },
      ]);
    });

    it('adds a fact exactly once when many handles add it at the same time', async () => {
      const { ledger } = harness();
      const handles = await harness().handles();
      const added = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          handles[i % handles.length]!.addFact(run('a'), 'denial', 'same', denial('r', i)),
        ),
      );
      expect(added.filter(Boolean)).toHaveLength(1);
      expect((await ledger.listFacts(run('a'))).denial).toHaveLength(1);
    });

    it('keeps facts and repair counts apart from record retention', async () => {
      const { ledger, clock, context } = harness();
      await ledger.addRepair(run('a'), 'fp');
      await ledger.addFact(run('a'), 'denial', 'r', denial('r', 1));
      await clock.advance(context.retentionMs * 2);
      expect(await ledger.getRepairs(run('a'), 'fp')).toBe(1);
      expect((await ledger.listFacts(run('a'))).denial).toHaveLength(1);
    });
  });

  describeWatchContract(harness);
}
