/**
 * A TCP link in front of a server that the benchmark cuts and restores: cut, the port refuses
 * connections and open ones drop — a partition, or a Service without ready endpoints — while
 * the server behind keeps running (no restart, so no start-up sync of its own).
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpLink {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

export async function startTcpLink(port: number, targetPort: number): Promise<TcpLink> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  async function restore(): Promise<void> {
    const listening = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
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
  await restore();
  return { port, cut, restore };
}
