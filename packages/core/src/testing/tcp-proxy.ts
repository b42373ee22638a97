import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on a loopback port whose connections can be frozen like a dead network: for
 * a store's tests of what happens when its server stops answering mid-call.
 */
export interface TcpProxy {
  readonly port: number;
  /** From now on nothing passes either way, and connections stay open (no FIN, no RST). */
  freeze(): void;
  /** Drops the frozen connections and lets new ones through again. */
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = createServer((downstream) => {
    track(downstream);
    if (frozen) return; // accepted, and never answered
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    downstream.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) downstream.write(chunk);
    });
    downstream.on('close', () => {
      if (!frozen) upstream.destroy();
    });
    upstream.on('close', () => {
      if (!frozen) downstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  return {
    port: address.port,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
