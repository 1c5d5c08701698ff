import { createServer } from 'node:net';

/**
 * The ports a test picks from: below the kernel's range for outgoing connections (32768–60999 on
 * Linux), so that between this check and the caller's listen — or while a server restarts on its
 * port — no outgoing connection can take the port as its local end (seen: EADDRINUSE on a port
 * `listen(0)` had handed out a moment before); below Kubernetes' NodePorts (30000–32767) and above
 * the fixed ports of the test servers that sit below both.
 */
const LOWEST = 21000;
const HIGHEST = 29999;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    });
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on right now, for a process a test or benchmark starts. Drawn
 * at random, so that jest's workers seldom draw the same one; tried before it is handed out.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${HIGHEST} after 50 tries`);
}
