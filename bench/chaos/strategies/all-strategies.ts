import { agentsSdkDefaultStrategy } from './agents-sdk-default.js';
import { aiSdkAloneStrategy } from './ai-sdk-alone.js';
import { cockatielStrategy } from './cockatiel.js';
import { langchainToolRetryStrategy } from './langchain-tool-retry.js';
import { naiveStrategy } from './naive.js';
import { pRetryStrategy } from './p-retry.js';
import { createRecourseStrategy } from './recourse.js';
import { retryTwiceStrategy } from './retry-twice.js';
import type { Strategy } from './strategy.js';

/** Every strategy the chaos benchmark compares, baselines first. */
export const allStrategies: readonly Strategy[] = [
  naiveStrategy,
  aiSdkAloneStrategy,
  agentsSdkDefaultStrategy,
  langchainToolRetryStrategy,
  pRetryStrategy,
  cockatielStrategy,
  retryTwiceStrategy,
  createRecourseStrategy({ ledger: 'memory' }),
  createRecourseStrategy({ ledger: 'sqlite' }),
  createRecourseStrategy({ ledger: 'memory', retryBudget: false }),
];
