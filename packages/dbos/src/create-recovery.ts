import { DBOS } from '@dbos-inc/dbos-sdk';
import {
  type AiSdkRecovery,
  type AiSdkRecoveryOptions,
  createRecovery as createAiSdkRecovery,
  InvalidOptionsError,
} from '@recourse/ai-sdk';
import { systemDatabaseLedger } from './system-database-ledger.js';

export interface DbosRecoveryOptions extends Omit<AiSdkRecoveryOptions, 'runId' | 'engine'> {
  /** The run the keys belong to. Default `DBOS.workflowID`: a resumed workflow derives the same keys. */
  runId?: string | undefined;
  /**
   * Where the default ledger lives when `ledger` is not given: DBOS's system database (the
   * `systemDatabaseUrl` given to `DBOS.setConfig`). Default: the `DBOS_SYSTEM_DATABASE_URL`
   * environment variable.
   */
  systemDatabaseUrl?: string | undefined;
}

/** What `createRecovery` returns: the same pieces as `@recourse/ai-sdk`'s. */
export type DbosRecovery = AiSdkRecovery;

/**
 * recourse for an AI SDK agent running inside a DBOS workflow: call it in the workflow
 * function, hand `tools`, `stopWhen` and `prepareStep` to `generateText` like
 * `@recourse/ai-sdk`'s. After a crash DBOS runs the workflow again; its model calls come
 * back from DBOS's checkpoints (`durableCalls` of `@dbos-inc/vercel-ai`), so the same tool
 * calls come back with the same keys, and the ledger answers every write that completed,
 * takes over the one a dead process left in flight (reconcile, replay behind its key, or a
 * person) and keeps a wait's claim until the wait's end.
 */
export function createRecovery(options: DbosRecoveryOptions = {}): DbosRecovery {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionsError('options', 'expected an object');
  }
  const { runId: ownRunId, systemDatabaseUrl, ...rest } = options;
  if ('engine' in rest) {
    throw new InvalidOptionsError('engine', 'is set by @recourse/dbos itself');
  }
  const runId = ownRunId ?? DBOS.workflowID;
  if (runId === undefined) {
    throw new InvalidOptionsError(
      'runId',
      'createRecovery was called outside a DBOS workflow: call it inside the workflow function, or pass runId',
    );
  }
  const ledger = rest.ledger ?? systemDatabaseLedger(resolveUrl(systemDatabaseUrl));
  return createAiSdkRecovery({ ...rest, runId, ledger, engine: {} });
}

function resolveUrl(own: string | undefined): string {
  const url = own ?? process.env.DBOS_SYSTEM_DATABASE_URL;
  if (typeof url !== 'string' || url.trim() === '') {
    throw new InvalidOptionsError(
      'systemDatabaseUrl',
      own === undefined
        ? "no ledger: pass `ledger`, or `systemDatabaseUrl` (DBOS's system database), or set DBOS_SYSTEM_DATABASE_URL"
        : 'must be a non-empty postgres:// URL',
    );
  }
  return url;
}
