// Compiled, never run: every published entry point's declarations typecheck in a strict
// nodenext project without skipLibCheck (agents and stores import the rest at runtime).

import type { AiSdkRecovery } from '@recourse/ai-sdk';
import type { Classification, Ledger, ToolPolicy } from '@recourse/core';
import type { AdapterSetup, RecoveryRuntime } from '@recourse/core/adapter';
import type { SqliteLedgerOptions } from '@recourse/core/sqlite';
import type { FakeClock, LedgerFactory } from '@recourse/core/testing';
import type { OpenAIRecovery } from '@recourse/openai';
import type { PostgresLedgerOptions } from '@recourse/store-postgres';
import type { RedisLedgerOptions } from '@recourse/store-redis';
import type { ScriptedProvider } from '@recourse/testing';

export type EntryPoints = [
  Classification,
  Ledger,
  ToolPolicy,
  AdapterSetup,
  RecoveryRuntime,
  SqliteLedgerOptions,
  FakeClock,
  LedgerFactory,
  AiSdkRecovery,
  OpenAIRecovery,
  PostgresLedgerOptions,
  RedisLedgerOptions,
  ScriptedProvider,
];
