import { describe, expect, it } from 'vitest';
import type { Denial } from '../ledger/ledger.js';
import type { LedgerContractHarness } from './ledger-contract.js';

export function describeRunStateContract(harness: () => LedgerContractHarness): void {
  const run = (suffix: string) => `${harness().context.namespace}-${suffix}`;

  describe('counters', () => {
    it('returns the new value, starting from 0, separately per run and per name', async () => {
      const { ledger } = harness();
      expect(await ledger.getCounter(run('a'), 'repairs:fp1')).toBe(0);
      expect(await ledger.incrementCounter(run('a'), 'repairs:fp1')).toBe(1);
      expect(await ledger.incrementCounter(run('a'), 'repairs:fp1')).toBe(2);
      expect(await ledger.incrementCounter(run('a'), 'repairs:fp1', 5)).toBe(7);
      expect(await ledger.incrementCounter(run('a'), 'repairs:fp2', 3)).toBe(3);
      expect(await ledger.incrementCounter(run('b'), 'repairs:fp1')).toBe(1);
      expect(await ledger.getCounter(run('a'), 'repairs:fp1')).toBe(7);
      expect(await ledger.getCounter(run('a'), 'repairs:fp2')).toBe(3);
      expect(await ledger.getCounter(run('b'), 'repairs:fp1')).toBe(1);
      expect(await ledger.getCounter(run('c'), 'repairs:fp1')).toBe(0);
    });

    it('does not mix up runs and names that concatenate alike', async () => {
      const { ledger } = harness();
      await ledger.incrementCounter(run('a:b'), 'c');
      expect(await ledger.getCounter(run('a'), 'b:c')).toBe(0);
    });

    it('adds fractional and whole steps in any order, and rejects a step that is not a number', async () => {
      const { ledger } = harness();
      expect(await ledger.incrementCounter(run('a'), 'cost', 0.5)).toBe(0.5);
      expect(await ledger.incrementCounter(run('a'), 'cost')).toBe(1.5);
      expect(await ledger.incrementCounter(run('a'), 'cost', 2)).toBe(3.5);
      expect(await ledger.getCounter(run('a'), 'cost')).toBe(3.5);
      await expect(ledger.incrementCounter(run('a'), 'cost', Number.NaN)).rejects.toMatchObject({
        field: 'by',
      });
      expect(await ledger.getCounter(run('a'), 'cost')).toBe(3.5);
    });

    it('adds concurrent increments exactly', async () => {
      const { ledger } = harness();
      const handles = await harness().handles();
      const values = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          handles[i % handles.length]!.incrementCounter(run('a'), 'attempts'),
        ),
      );
      expect([...values].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      expect(await ledger.getCounter(run('a'), 'attempts')).toBe(50);
    });
  });

  describe('denials', () => {
    const denial = (resource: string, at: number, capability?: string): Denial => ({
      resource,
      ...(capability === undefined ? {} : { capability }),
      tool: 'github_api',
      reason: 'HTTP_403',
      at,
    });

    it('lists a run’s denials oldest first, with every field', async () => {
      const { ledger, clock } = harness();
      const start = clock.now();
      expect(await ledger.listDenials(run('a'))).toEqual([]);
      await ledger.addDenial(run('a'), denial('https://github.com/acme/infra', start, 'write'));
      await clock.advance(5);
      await ledger.addDenial(run('a'), denial('file:///etc/shadow', start + 5));
      await clock.advance(5);
      await ledger.addDenial(run('a'), denial('shell:rm', start + 10, 'exec'));
      expect(await ledger.listDenials(run('a'))).toEqual([
        denial('https://github.com/acme/infra', start, 'write'),
        denial('file:///etc/shadow', start + 5),
        denial('shell:rm', start + 10, 'exec'),
      ]);
    });

    it('is idempotent per resource and capability, and keeps the first record', async () => {
      const { ledger } = harness();
      await ledger.addDenial(run('a'), denial('r1', 1, 'write'));
      await ledger.addDenial(run('a'), { ...denial('r1', 2, 'write'), tool: 'shell' });
      await ledger.addDenial(run('a'), denial('r1', 3, 'read'));
      await ledger.addDenial(run('a'), denial('r1', 4));
      await ledger.addDenial(run('a'), denial('r1', 5));
      expect(await ledger.listDenials(run('a'))).toEqual([
        denial('r1', 1, 'write'),
        denial('r1', 3, 'read'),
        denial('r1', 4),
      ]);
    });

    it('keeps runs apart', async () => {
      const { ledger } = harness();
      await ledger.addDenial(run('a'), denial('r1', 1));
      await ledger.addDenial(run('b'), denial('r2', 2));
      expect(await ledger.listDenials(run('a'))).toEqual([denial('r1', 1)]);
      expect(await ledger.listDenials(run('b'))).toEqual([denial('r2', 2)]);
      expect(await ledger.listDenials(run('c'))).toEqual([]);
    });

    it('returns copies: changing a listed denial changes nothing stored', async () => {
      const { ledger } = harness();
      await ledger.addDenial(run('a'), denial('r1', 1));
      const listed = await ledger.listDenials(run('a'));
      listed[0]!.resource = 'changed';
      listed.push(denial('r2', 2));
      expect(await ledger.listDenials(run('a'))).toEqual([denial('r1', 1)]);
    });
  });
}
