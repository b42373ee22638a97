import { ChatOpenAI } from '@langchain/openai';
import * as langchain from 'langchain';
import { vi } from 'vitest';
import { describeCompatScenario } from './scenario.js';

// The newest langchain and @langchain/core of @recourse/langchain's peer range (the
// oldest end is tests/langchain-compat-oldest). The adapter resolves its peer
// `langchain` from its own package (the workspace's dev dependency), where an installed
// adapter resolves the application's: the mock gives it this package's, as installing would
// (by the file its `import` condition names; the scenario checks that the mock took).
vi.mock('../../packages/langchain/node_modules/langchain/dist/index.js', () => import('langchain'));

describeCompatScenario(import.meta.url, { ...langchain, ChatOpenAI });
