import { createPrng } from '../chaos/prng.js';
import { type KillPoint, killPoints, type WriteTool, writeTools } from './protocol.js';

export interface KillPlan {
  /** The job's number; job n of every strategy has the same plan. */
  index: number;
  write: WriteTool;
  point: KillPoint;
}

/** One plan per job from the seed: which write the process dies in, and where in it. */
export function killPlans(seed: number, jobs: number): KillPlan[] {
  const random = createPrng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  return Array.from({ length: jobs }, (_, index) => ({
    index,
    write: pick(writeTools),
    point: pick(killPoints),
  }));
}
