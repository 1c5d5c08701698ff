// A TCP relay, run as its own process by the node server: `node relay.js <address> <port>...`
// listens on <address>:<port> and connects each client to 127.0.0.1:<port>. The test servers
// listen on loopback only; this makes them reachable from the node's pods and from nowhere else
// (the address is the pods' bridge).
import net from 'node:net';

function relay(address: string, port: number): void {
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port });
    // Either side closing or failing ends both: a half-dead pair would hang the client.
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('error', (error) => {
    process.stderr.write(`relay ${address}:${port}: ${error.message}\n`);
    process.exit(1);
  });
  server.listen(port, address, () =>
    process.stdout.write(`relay ${address}:${port} -> 127.0.0.1:${port}\n`),
  );
}

const [address, ...ports] = process.argv.slice(2);
if (address === undefined || ports.length === 0) {
  process.stderr.write('usage: relay.js <address> <port>...\n');
  process.exit(2);
}
for (const port of ports) relay(address, Number(port));
