import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { freePort, stopChild } from '../../src/index';

describe('freePort', () => {
  it('gives a loopback port another server can listen on', async () => {
    const port = await freePort();
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('stopChild', () => {
  it('kills a running child and resolves once it has exited', async () => {
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    await stopChild(child);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('resolves at once for a child that already exited', async () => {
    const child = spawn('true');
    await once(child, 'exit');
    await expect(stopChild(child)).resolves.toBeUndefined();
  });
});
