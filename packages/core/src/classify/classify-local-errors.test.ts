import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LedgerUnavailableError } from '../errors.js';
import { classifyFailure } from './classify-failure.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('classifyFailure on validation errors', () => {
  it('a zod v4 parse error is VALIDATION and names the field', () => {
    const schema = z.object({ user: z.object({ email: z.email() }), amount: z.number() });
    const error = thrown(() => schema.parse({ user: { email: 'nope' }, amount: 3 }));
    expect(error).toBeInstanceOf(z.ZodError);
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'INVALID_INPUT',
      field: 'user.email',
    });
  });

  it('JSON.parse of bad arguments is VALIDATION / INVALID_JSON', () => {
    const error = thrown(() => JSON.parse('{bad'));
    expect(error).toBeInstanceOf(SyntaxError);
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'VALIDATION',
      code: 'INVALID_JSON',
    });
  });
});

describe('classifyFailure on recourse and local errors', () => {
  it("the ledger's LedgerUnavailableError is TRANSIENT, whatever its cause", () => {
    const cause = Object.assign(new Error('permission denied for table ledger'), {
      name: 'error',
      code: '42501',
      severity: 'ERROR',
    });
    const error = new LedgerUnavailableError('postgres', 'claim failed', { cause });
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'LEDGER_UNAVAILABLE',
    });
  });

  it('anything unrecognised is PERMANENT, or UNKNOWN_OUTCOME with side effects', () => {
    const error = new Error('the flux capacitor wobbled');
    expect(classifyFailure(error)).toMatchObject({ failureClass: 'PERMANENT', code: 'UNKNOWN' });
    expect(classifyFailure(error, { sideEffects: false }).failureClass).toBe('PERMANENT');
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
    expect(classifyFailure(undefined)).toMatchObject({
      failureClass: 'PERMANENT',
      message: 'Unknown error',
    });
    expect(classifyFailure(42).message).toBe('42');
  });

  it('407 (which fetch never surfaces as a status) is AUTHORIZATION when a client reports it', () => {
    const error = Object.assign(new Error('Proxy Authentication Required'), { statusCode: 407 });
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'AUTHORIZATION',
      code: 'NOT_AUTHORIZED',
    });
  });

  it('recognises version, ETag and "already exists" conflicts from text', () => {
    expect(classifyFailure(new Error('ETag mismatch: resource changed')).failureClass).toBe(
      'STALE_STATE',
    );
    expect(classifyFailure(new Error('branch "main" already exists')).code).toBe('ALREADY_EXISTS');
    expect(classifyFailure(new Error('Your card was declined.')).code).toBe('PAYMENT_REQUIRED');
    expect(classifyFailure(new Error('Operation not supported on this volume')).code).toBe(
      'NOT_SUPPORTED',
    );
  });

  it('recognises authorization codes from any API', () => {
    for (const code of [
      'NOT_AUTHORIZED',
      'UNAUTHORIZED',
      'AccessDenied',
      'PERMISSION_DENIED',
      'FORBIDDEN',
    ]) {
      const error = Object.assign(new Error('denied'), { code });
      expect(classifyFailure(error).failureClass, code).toBe('AUTHORIZATION');
    }
    const throttled = Object.assign(new Error('Rate exceeded'), {
      name: 'ThrottlingException',
      code: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    expect(classifyFailure(throttled)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'RATE_LIMITED',
    });
  });
});

describe('classifyFailure on real ioredis errors', () => {
  async function silentServer() {
    const sockets: Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const close = async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    };
    return { port, close };
  }

  it('MaxRetriesPerRequestError (refused, retried) is TRANSIENT with side effects too', async () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: 1,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 5,
    });
    redis.on('error', () => {});
    const error = await rejection(redis.get('k'));
    redis.disconnect();
    expect((error as Error).name).toBe('MaxRetriesPerRequestError');
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_REFUSED',
    });
  });

  it('offline queue disabled on a refused connection is CONNECTION_REFUSED', async () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: 1,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    const error = await rejection(redis.get('k'));
    redis.disconnect();
    expect(classifyFailure(error, { sideEffects: true })).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_REFUSED',
    });
  });

  it('"Connection is closed." is a connection failure (TRANSIENT)', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379, retryStrategy: () => null });
    redis.on('error', () => {});
    await redis.quit();
    const error = await rejection(redis.get('k'));
    expect((error as Error).message).toBe('Connection is closed.');
    expect(classifyFailure(error)).toMatchObject({
      failureClass: 'TRANSIENT',
      code: 'CONNECTION_RESET',
    });
  });

  it('"Command timed out" is a TIMEOUT; with side effects the command may still have run', async () => {
    const server = await silentServer();
    const redis = new Redis({
      host: '127.0.0.1',
      port: server.port,
      commandTimeout: 30,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
    });
    redis.on('error', () => {});
    const error = await rejection(redis.set('k', 'v'));
    redis.disconnect();
    await server.close();
    expect((error as Error).message).toBe('Command timed out');
    expect(classifyFailure(error)).toMatchObject({ failureClass: 'TRANSIENT', code: 'TIMEOUT' });
    expect(classifyFailure(error, { sideEffects: true }).failureClass).toBe('UNKNOWN_OUTCOME');
  });
});
