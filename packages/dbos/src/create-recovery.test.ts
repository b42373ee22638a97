import { describe, expect, it } from 'vitest';
import { createRecovery, MemoryLedger } from './index.js';

describe('@recourse/dbos createRecovery, outside a workflow', () => {
  it('needs a runId when DBOS has no workflow here, and says where it comes from', () => {
    expect(() => createRecovery({ ledger: new MemoryLedger() })).toThrow(
      expect.objectContaining({ name: 'InvalidOptionsError', field: 'runId' }),
    );
  });

  it('needs a ledger or a system database, naming systemDatabaseUrl', () => {
    const saved = process.env.DBOS_SYSTEM_DATABASE_URL;
    delete process.env.DBOS_SYSTEM_DATABASE_URL;
    try {
      expect(() => createRecovery({ runId: 'wf-1' })).toThrow(
        expect.objectContaining({ field: 'systemDatabaseUrl' }),
      );
      expect(() => createRecovery({ runId: 'wf-1', systemDatabaseUrl: ' ' })).toThrow(
        expect.objectContaining({ field: 'systemDatabaseUrl' }),
      );
    } finally {
      if (saved !== undefined) process.env.DBOS_SYSTEM_DATABASE_URL = saved;
    }
  });

  it('keeps the engine mode its own, and checks the AI SDK adapter options as that adapter does', () => {
    expect(() =>
      createRecovery({ runId: 'wf-1', ledger: new MemoryLedger(), engine: {} } as never),
    ).toThrow(expect.objectContaining({ field: 'engine' }));
    expect(() =>
      createRecovery({ runId: 'wf-1', ledger: new MemoryLedger(), failureMod: 'throw' } as never),
    ).toThrow(expect.objectContaining({ field: 'failureMod', suggestion: 'failureMode' }));
  });

  it('with a runId and a ledger, returns the AI SDK adapter shape', () => {
    const recovery = createRecovery({ runId: 'wf-1', ledger: new MemoryLedger() });
    expect(recovery.runtime.runId).toBe('wf-1');
    expect(typeof recovery.tools).toBe('function');
    expect(typeof recovery.stopWhen).toBe('function');
    expect(typeof recovery.prepareStep).toBe('function');
    expect(recovery.outcome().status).toBe('COMPLETED');
  });
});
