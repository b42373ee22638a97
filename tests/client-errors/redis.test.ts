import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classesOf, closedPort, rejection } from './support.js';

const shared = { host: '127.0.0.1', port: 6379 };
const suffix = `${process.pid}_${Date.now()}`;
const prefix = `recourse_classify_${suffix}`;
const aclUser = `recourse_classify_${suffix}`;
const aclPassword = `pw-${suffix}`;

const ioredisClients: Redis[] = [];
interface ClientOptions {
  port?: number;
  username?: string;
  password?: string;
  protocol?: 2 | 3;
  lazyConnect?: boolean;
  enableReadyCheck?: boolean;
  enableOfflineQueue?: boolean;
  retryStrategy?: () => number | null;
}

function ioredis(options: ClientOptions = {}): Redis {
  const client = new Redis({ ...shared, lazyConnect: true, maxRetriesPerRequest: 0, ...options });
  client.on('error', () => {}); // connection errors also arrive as events
  ioredisClients.push(client);
  return client;
}

// A private redis-server with a password, for NOAUTH, BUSY and READONLY, which would
// disturb the shared server.
let privateServer: ChildProcess | undefined;
let privatePort = 0;
const privatePassword = `private-${suffix}`;
async function startPrivateServer(): Promise<void> {
  privatePort = await closedPort();
  const child = spawn('redis-server', [
    '--port',
    String(privatePort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--requirepass',
    privatePassword,
    '--busy-reply-threshold',
    '20',
  ]);
  privateServer = child;
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
    if (output.includes('Ready to accept connections')) child.emit('ready');
  });
  await Promise.race([
    once(child, 'ready'),
    once(child, 'exit').then(() => Promise.reject(new Error(`redis-server exited: ${output}`))),
    once(child, 'error').then(([error]) => Promise.reject(error)),
  ]);
}

let admin: Redis;
beforeAll(async () => {
  admin = ioredis();
  await admin.connect();
  await admin.call('ACL', 'SETUSER', aclUser, 'on', `>${aclPassword}`, `~${prefix}:*`, '+get');
  await startPrivateServer();
});
afterAll(async () => {
  await admin.call('ACL', 'DELUSER', aclUser);
  await admin.del(`${prefix}:list`, `${prefix}:watched`);
  for (const client of ioredisClients) client.disconnect();
  privateServer?.kill();
});

describe('ioredis replies', () => {
  it('WRONGPASS (a wrong password for an ACL user) is AUTHORIZATION', async () => {
    const client = ioredis();
    await client.connect();
    const error = await rejection(() => client.auth(aclUser, 'not-the-password'));
    expect(error).toMatchObject({
      name: 'ReplyError',
      message: expect.stringMatching(/^WRONGPASS/),
    });
    expect(classesOf(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it("NOPERM (a command outside the ACL user's rights) is AUTHORIZATION / FORBIDDEN", async () => {
    const client = ioredis({ username: aclUser, password: aclPassword });
    await client.connect();
    const error = await rejection(() => client.set(`${prefix}:k`, 'v'));
    expect((error as Error).message).toMatch(/^NOPERM/);
    expect(classesOf(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN']);
  });

  it('NOAUTH (no password on a server that requires one) is AUTHORIZATION', async () => {
    // RESP2: no HELLO handshake, so the command itself meets the missing authentication.
    const client = ioredis({ port: privatePort, enableReadyCheck: false, protocol: 2 });
    await client.connect();
    const error = await rejection(() => client.set('k', 'v'));
    expect((error as Error).message).toMatch(/^NOAUTH/);
    expect(classesOf(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it('READONLY (a write to a replica) is TRANSIENT: the server refused it before running it', async () => {
    const client = ioredis({ port: privatePort, password: privatePassword });
    await client.connect();
    await client.call('REPLICAOF', '127.0.0.1', String(await closedPort()));
    const error = await rejection(() => client.set('k', 'v'));
    await client.call('REPLICAOF', 'NO', 'ONE');
    expect((error as Error).message).toMatch(/^READONLY/);
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE']);
  });

  it('BUSY (a script holds the server) is TRANSIENT', async () => {
    const scripted = ioredis({ port: privatePort, password: privatePassword });
    const other = ioredis({ port: privatePort, password: privatePassword });
    await Promise.all([scripted.connect(), other.connect()]);
    // Spins for 200 ms of server time; past the 20 ms threshold other clients get BUSY.
    const spin = `local t = redis.call('TIME') local start = t[1] * 1000000 + t[2]
      while true do local n = redis.call('TIME') if n[1] * 1000000 + n[2] - start > 200000 then break end end
      return 1`;
    const running = scripted.eval(spin, 0);
    const error = await rejection(() => other.set('k', 'v'));
    await running;
    expect((error as Error).message).toMatch(/^BUSY/);
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'SERVICE_UNAVAILABLE']);
  });

  it.each([
    ['WRONGTYPE', 'VALIDATION', 'INVALID_INPUT'],
    ['EXECABORT', 'VALIDATION', 'INVALID_INPUT'],
    ['NOSCRIPT', 'PERMANENT', 'NOT_FOUND'],
    ['ERR', 'VALIDATION', 'INVALID_INPUT'],
  ])('%s', async (kind, failureClass, code) => {
    const client = ioredis();
    await client.connect();
    const run: Record<string, () => Promise<unknown>> = {
      WRONGTYPE: async () => {
        await client.set(`${prefix}:list`, 'a string');
        await client.lpush(`${prefix}:list`, 'x');
      },
      EXECABORT: () => client.multi().call('SET', `${prefix}:only-key`).exec(),
      NOSCRIPT: () => client.evalsha('0000000000000000000000000000000000000000', 0),
      ERR: () => client.call('INCRBY', `${prefix}:n`, 'not-a-number'),
    };
    const error = await rejection(run[kind]!);
    expect(classesOf(error)).toEqual([failureClass, failureClass, code]);
  });

  it('a refused connection is TRANSIENT even for a write: the command was never written', async () => {
    const port = await closedPort();
    // Offline queue on: the queued command is failed once the reconnect budget is spent.
    const queued = ioredis({ port, lazyConnect: false, retryStrategy: () => 10 });
    const maxRetries = await rejection(() => queued.set('k', 'v'));
    queued.disconnect();
    expect(maxRetries).toMatchObject({ name: 'MaxRetriesPerRequestError' });
    expect(classesOf(maxRetries)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
    // Offline queue off: the command is refused before it is written.
    const unqueued = ioredis({
      port,
      lazyConnect: false,
      enableOfflineQueue: false,
      retryStrategy: () => 10,
    });
    const notWritable = await rejection(() => unqueued.set('k', 'v'));
    unqueued.disconnect();
    expect((notWritable as Error).message).toMatch(/Stream isn't writeable/);
    expect(classesOf(notWritable)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});

describe('node-redis replies and client errors', () => {
  it('WRONGPASS and NOAUTH are AUTHORIZATION', async () => {
    const client = createClient({ socket: shared });
    client.on('error', () => {});
    await client.connect();
    const wrongPass = await rejection(() => client.auth({ username: aclUser, password: 'nope' }));
    await client.quit();
    expect((wrongPass as Error).message).toMatch(/^WRONGPASS/);
    expect(classesOf(wrongPass)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);

    // node-redis authenticates in its HELLO handshake: connect() itself meets NOAUTH.
    const unauthenticated = createClient({
      socket: { host: '127.0.0.1', port: privatePort, reconnectStrategy: false },
    });
    unauthenticated.on('error', () => {});
    const noAuth = await rejection(() => unauthenticated.connect());
    expect((noAuth as Error).message).toMatch(/^NOAUTH/);
    expect(classesOf(noAuth)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it('NOPERM is AUTHORIZATION / FORBIDDEN; WRONGTYPE is VALIDATION', async () => {
    const client = createClient({ socket: shared, username: aclUser, password: aclPassword });
    client.on('error', () => {});
    await client.connect();
    const noPerm = await rejection(() => client.set(`${prefix}:k`, 'v'));
    await client.quit();
    expect(classesOf(noPerm)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN']);

    const plain = createClient({ socket: shared });
    plain.on('error', () => {});
    await plain.connect();
    await plain.set(`${prefix}:list`, 'a string');
    const wrongType = await rejection(() => plain.lPush(`${prefix}:list`, 'x'));
    await plain.quit();
    expect(classesOf(wrongType)).toEqual(['VALIDATION', 'VALIDATION', 'INVALID_INPUT']);
  });

  it('a WATCHed key changed before EXEC (WatchError) is STALE_STATE', async () => {
    const client = createClient({ socket: shared });
    const intruder = createClient({ socket: shared });
    for (const c of [client, intruder]) c.on('error', () => {});
    await Promise.all([client.connect(), intruder.connect()]);
    const key = `${prefix}:watched`;
    const isolated = await client.duplicate().connect();
    await isolated.watch(key);
    await intruder.set(key, 'changed meanwhile');
    const error = await rejection(() => isolated.multi().set(key, 'mine').exec());
    await Promise.all([client.quit(), intruder.quit(), isolated.quit()]);
    expect(error?.constructor.name).toBe('WatchError');
    expect(classesOf(error)).toEqual(['STALE_STATE', 'STALE_STATE', 'CONFLICT']);
  });

  it('a command on a closed client was never sent; a refused connect is TRANSIENT', async () => {
    const client = createClient({ socket: shared });
    client.on('error', () => {});
    await client.connect();
    await client.quit();
    const closed = await rejection(() => client.set(`${prefix}:k`, 'v'));
    expect(closed?.constructor.name).toBe('ClientClosedError');
    expect(classesOf(closed)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_CLOSED']);

    const refused = createClient({
      socket: { host: '127.0.0.1', port: await closedPort(), reconnectStrategy: false },
    });
    refused.on('error', () => {});
    const error = await rejection(() => refused.connect());
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });
});
