import { describe, expect, it } from 'vitest';
import { Downstream } from './downstream.js';
import { planFault } from './fault-schedule.js';
import { jobSteps, type StepInput, type StepSpec } from './job-steps.js';
import { runChaos } from './run-chaos.js';
import { naiveStrategy } from './strategies/naive.js';
import { createRecourseStrategy } from './strategies/recourse.js';
import { createVirtualTime } from './virtual-time.js';

const step = (name: string): StepSpec => jobSteps.find((s) => s.name === name)!;
const input = (name: string): StepInput => ({
  job: 'job-1',
  step: name,
  amount: 10,
  fixed: false,
  version: 1,
});

describe('Downstream', () => {
  const create = () => {
    const time = createVirtualTime(() => 0.5);
    const downstream = new Downstream({
      clock: time,
      faults: { seed: 1, rate: 0 },
      outage: { dependency: 'inventory', startMs: 1e9, endMs: 1e9 },
    });
    return { time, downstream };
  };

  it('counts a write sent under two keys twice, and dedupes a repeat of one key', async () => {
    const { time, downstream } = create();
    const order = step('create_order');
    await time.run(async () => {
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'a',
        callId: 1,
      });
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'a',
        callId: 1,
      });
      await downstream.request({
        step: order,
        input: input(order.name),
        idempotencyKey: 'b',
        callId: 2,
      });
    });
    expect(downstream.record(order, input(order.name)).applied).toBe(2);
    expect(downstream.counters.requests).toBe(3);
  });

  it('applies every request of an unguarded write and finds a landed key by lookup', async () => {
    const { time, downstream } = create();
    const crm = step('update_crm');
    const found = await time.run(async () => {
      await downstream.request({
        step: crm,
        input: input(crm.name),
        idempotencyKey: 'k',
        callId: 1,
      });
      await downstream.request({
        step: crm,
        input: input(crm.name),
        idempotencyKey: 'k',
        callId: 1,
      });
      return [
        await downstream.lookup(crm, input(crm.name), 'k'),
        await downstream.lookup(crm, input(crm.name), 'other'),
      ];
    });
    expect(downstream.record(crm, input(crm.name)).applied).toBe(2);
    expect(found).toEqual([true, false]);
  });
});

describe('fault schedule', () => {
  const operations = Array.from({ length: 400 }, (_, i) => `job-${i}/create_order`);
  const plans = (seed: number, rate: number) =>
    operations.map((op) => planFault({ seed, rate }, op, step('create_order')));

  it('is the same for the same seed and differs for another seed', () => {
    expect(plans(7, 0.2)).toEqual(plans(7, 0.2));
    expect(plans(8, 0.2)).not.toEqual(plans(7, 0.2));
  });

  it('faults about `rate` of the operations, and none at rate 0', () => {
    const faulted = plans(7, 0.2).filter((plan) => plan.kind !== 'none').length;
    expect(faulted).toBeGreaterThan(40);
    expect(faulted).toBeLessThan(120);
    expect(plans(7, 0).every((plan) => plan.kind === 'none')).toBe(true);
  });

  it('never gives a read a write-only fault', () => {
    const reads = operations.map((op) => planFault({ seed: 3, rate: 1 }, op, step('get_customer')));
    expect(reads.some((plan) => plan.kind === 'timeout-after-write')).toBe(false);
    expect(reads.some((plan) => plan.kind === 'stale-state')).toBe(false);
  });
});

describe('runChaos', () => {
  const config = { jobs: 40, rate: 0.3, seed: 11 };
  const withoutRealTime = ({ realMs: _, ...rest }: { realMs: number }) => rest;

  it('is reproducible: the same seed gives the same figures', async () => {
    const first = await runChaos(config, naiveStrategy);
    const second = await runChaos(config, naiveStrategy);
    expect(withoutRealTime(second)).toEqual(withoutRealTime(first));
  });

  it('counts the naive baseline duplicates; recourse lands every write at most once', async () => {
    const naive = await runChaos(config, naiveStrategy);
    const recourse = await runChaos(config, createRecourseStrategy({ ledger: 'memory' }));
    expect(naive.duplicateWrites).toBeGreaterThan(0);
    expect(recourse.duplicateWrites).toBe(0);
    expect(recourse.lostWrites).toBe(0);
    expect(recourse.wastedAttempts).toBe(0);
  });
});
