import * as grpc from '@grpc/grpc-js';
import { classifyFailure } from '@recourse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, rejection } from './support.js';

// A raw-bytes unary service: no .proto needed to get real grpc-js status errors.
const bytes = (buffer: Buffer) => buffer;
const method = {
  path: '/recourse.test.Orders/Create',
  requestStream: false,
  responseStream: false,
  requestSerialize: bytes,
  requestDeserialize: bytes,
  responseSerialize: bytes,
  responseDeserialize: bytes,
};
const service: grpc.ServiceDefinition = { create: method };
const Orders = grpc.makeGenericClientConstructor(service, 'Orders');
type OrdersClient = grpc.Client & {
  create(
    request: Buffer,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null) => void,
  ): void;
};

// The status the server answers with, taken from the request's text: "code:details".
let server: grpc.Server;
let client: OrdersClient;
beforeAll(async () => {
  server = new grpc.Server();
  server.addService(service, {
    create: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      const [code, details = ''] = call.request.toString().split(':');
      if (code === 'hang') return; // never answers: the client's deadline runs out
      const metadata = new grpc.Metadata();
      if (code === String(grpc.status.RESOURCE_EXHAUSTED))
        metadata.set('grpc-retry-pushback-ms', '250');
      callback({ code: Number(code), details, metadata });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  client = new Orders(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  ) as unknown as OrdersClient;
});
afterAll(() => {
  client.close();
  server.forceShutdown();
});

function call(target: OrdersClient, text: string, deadlineMs = 2000): Promise<unknown> {
  return rejection(
    () =>
      new Promise<void>((resolve, reject) =>
        target.create(Buffer.from(text), { deadline: Date.now() + deadlineMs }, (error) =>
          error ? reject(error) : resolve(),
        ),
      ),
  );
}

describe('@grpc/grpc-js status errors from a real server', () => {
  it.each([
    [grpc.status.INVALID_ARGUMENT, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [grpc.status.NOT_FOUND, 'PERMANENT', 'PERMANENT', 'NOT_FOUND'],
    [grpc.status.ALREADY_EXISTS, 'STALE_STATE', 'STALE_STATE', 'ALREADY_EXISTS'],
    [grpc.status.PERMISSION_DENIED, 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [grpc.status.UNAUTHENTICATED, 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    [grpc.status.RESOURCE_EXHAUSTED, 'TRANSIENT', 'TRANSIENT', 'RATE_LIMITED'],
    [grpc.status.FAILED_PRECONDITION, 'STALE_STATE', 'STALE_STATE', 'PRECONDITION_FAILED'],
    [grpc.status.ABORTED, 'STALE_STATE', 'STALE_STATE', 'CONFLICT'],
    [grpc.status.OUT_OF_RANGE, 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [grpc.status.UNIMPLEMENTED, 'PERMANENT', 'PERMANENT', 'NOT_SUPPORTED'],
    [grpc.status.INTERNAL, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [grpc.status.UNKNOWN, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
    [grpc.status.UNAVAILABLE, 'TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE'],
    [grpc.status.DATA_LOSS, 'TRANSIENT', 'UNKNOWN_OUTCOME', 'SERVER_ERROR'],
  ])('status %i', async (code, noHint, withHint, expected) => {
    const error = await call(client, `${code}:answered by the server`);
    expect(error).toMatchObject({ code, details: 'answered by the server' });
    expect(classesOf(error)).toEqual([noHint, withHint, expected]);
  });

  it('RESOURCE_EXHAUSTED waits for the server pushback', async () => {
    const error = await call(client, `${grpc.status.RESOURCE_EXHAUSTED}:quota`);
    expect(classifyFailure(error).retryAfterMs).toBe(250);
  });

  it('DEADLINE_EXCEEDED after the call reached the server is UNKNOWN_OUTCOME for a write', async () => {
    const error = await call(client, 'hang', 50);
    expect(error).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'TIMEOUT']);
  });

  it('CANCELLED by the client after the call reached the server is UNKNOWN_OUTCOME for a write', async () => {
    const error = await rejection(
      () =>
        new Promise<void>((resolve, reject) => {
          const pending = (
            client.create as unknown as (
              request: Buffer,
              options: grpc.CallOptions,
              callback: (error: grpc.ServiceError | null) => void,
            ) => grpc.ClientUnaryCall
          ).call(client, Buffer.from('hang'), { deadline: Date.now() + 2000 }, (e) =>
            e ? reject(e) : resolve(),
          );
          setImmediate(() => pending.cancel());
        }),
    );
    expect(error).toMatchObject({ code: grpc.status.CANCELLED });
    expect(classesOf(error)).toEqual(['PERMANENT', 'UNKNOWN_OUTCOME', 'CANCELLED']);
  });

  it('UNAVAILABLE with no connection established is a refused connection', async () => {
    const refused = new Orders(
      `127.0.0.1:${await closedPort()}`,
      grpc.credentials.createInsecure(),
    ) as unknown as OrdersClient;
    const error = await call(refused, '0:', 500);
    refused.close();
    expect(error).toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
