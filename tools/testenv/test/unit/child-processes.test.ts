import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, stopChild } from '../../src/index';

describe('freePort', () => {
  it('gives a loopback port another server can listen on', async () => {
    const port = await freePort();
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('stays below the ports the kernel hands out for outgoing connections', async () => {
    const ephemeralStart = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
    expect(new Set(ports).size).toBeGreaterThan(1);
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
