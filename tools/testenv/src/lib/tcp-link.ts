/**
 * A TCP link in front of a server that a test or benchmark can cut and restore: cut, its port
 * refuses connections and every open one is dropped — a partition, or a Service without ready
 * pods — while the server behind it keeps running (no restart, so no start-up sync of its own).
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpLink {
  /** The port callers connect to. */
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` and passes each connection to 127.0.0.1:`targetPort`. */
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
  return { port, cut, restore: listen, close: cut };
}
