import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { MemoryLedger } from '@recourse/core';
import { SqliteLedger } from '@recourse/core/sqlite';
import { PostgresLedger } from '@recourse/store-postgres';
import { RedisLedger } from '@recourse/store-redis';
import { describe, expect, it } from 'vitest';
import { startFixtureHttp } from '../test-support/fixture-server.js';
import { tempDir } from '../test-support/harness.js';
import { createRecoveryProxy } from './index.js';
import { defaultLedgerFile, openLedger } from './open-ledger.js';

describe('OpenTelemetry', () => {
  it('each tools/call is one execute_tool span, as in the core; a failure says its class', async () => {
    const upstream = await startFixtureHttp();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const proxy = createRecoveryProxy({
      upstream: { url: upstream.url },
      ledger: new MemoryLedger(),
      runId: 'otel-run',
      tracer: provider.getTracer('test'),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await proxy.connect(serverSide);
    const client = new Client({ name: 'otel', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      await client.callTool({ name: 'read_note', arguments: { id: 'o1' } });
      await client.callTool({ name: 'write_entry', arguments: { id: 'o2' } });
      await client.callTool({ name: 'get_repo', arguments: { repo: 'acme/secret' } });
    } finally {
      await client.close();
      await proxy.close();
      await upstream.close();
    }
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual([
      'execute_tool read_note',
      'execute_tool write_entry',
      'execute_tool get_repo',
    ]);
    const [read, write, denied] = spans;
    expect(read?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_note',
      'recourse.run_id': 'otel-run',
    });
    expect(write?.attributes['recourse.idempotency_key']).toMatch(/^otel-run:write_entry:/);
    expect(denied?.attributes).toMatchObject({
      'recourse.failure_class': 'AUTHORIZATION',
      'recourse.recovery.action': 'ABORT',
    });
  });
});

describe('--ledger', () => {
  it('opens SQLite by default in the working directory, PostgreSQL and Redis by URL', async () => {
    const dir = tempDir();
    const sqlite = await openLedger(undefined, dir);
    expect(sqlite).toBeInstanceOf(SqliteLedger);
    await sqlite.close();
    const named = await openLedger('other.sqlite', dir);
    expect(named).toBeInstanceOf(SqliteLedger);
    await named.close();
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(dir, defaultLedgerFile))).toBe(true);
    expect(existsSync(path.join(dir, 'other.sqlite'))).toBe(true);
    const postgres = await openLedger('postgres://postgres@127.0.0.1:5432/test', dir);
    expect(postgres).toBeInstanceOf(PostgresLedger);
    await postgres.close();
    const redis = await openLedger('redis://127.0.0.1:6379', dir);
    expect(redis).toBeInstanceOf(RedisLedger);
    await redis.close();
  });
});
