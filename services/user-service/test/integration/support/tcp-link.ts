/**
 * A TCP link in front of a server that a test can cut and restore: cut, its port refuses
 * connections and every open one is dropped — a partition, or a Service without ready pods —
 * while the server behind it keeps running (no restart, so no start-up sync of its own).
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpLink {
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpLink(port: number, targetPort: number): Promise<TcpLink> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;

  async function listen(): Promise<void> {
    const listening = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    listening.listen(port, '127.0.0.1');
    await once(listening, 'listening');
    server = listening;
  }

  async function cut(): Promise<void> {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  }

  await listen();
  return { cut, restore: listen, close: cut };
}
