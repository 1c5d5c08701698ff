/**
 * `make dev`: starts every service that has a built entry (`services/<name>/dist/main.js`)
 * with the test servers' settings, one port each from DEV_BASE_PORT (default 4000), prints
 * their URLs and stops them all on Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { currentSettings, envFilePath, readEnvFile } from '@pelita/testenv';

const root = resolve(__dirname, '..', '..', '..');
const basePort = Number(process.env.DEV_BASE_PORT ?? 4000);

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function builtServices(): string[] {
  const dir = join(root, 'services');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'dist', 'main.js')))
    .sort();
}

function main(): void {
  const testenv = readEnvFile(envFilePath(currentSettings())) ?? {};
  say('Test servers (from `make testenv`):');
  for (const [key, value] of Object.entries(testenv)) {
    if (/URL|ENDPOINT/.test(key)) say(`  ${key.padEnd(22)} ${value}`);
  }

  const services = builtServices();
  if (services.length === 0)
    say('No service has a built entry yet (services/<name>/dist/main.js).');
  const children: ChildProcess[] = services.map((name, index) => {
    const port = basePort + index;
    const child = spawn(process.execPath, [join(root, 'services', name, 'dist', 'main.js')], {
      env: { ...testenv, ...process.env, PORT: String(port), OTEL_SERVICE_NAME: name },
      stdio: 'inherit',
    });
    say(`  ${name.padEnd(22)} http://127.0.0.1:${port}  (docs: /api-docs)`);
    child.on('exit', (code, signal) => say(`${name} exited (${signal ?? code})`));
    return child;
  });

  const stopAll = () => {
    for (const child of children) child.kill('SIGTERM');
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
  if (children.length > 0)
    say('Ctrl-C stops the services; `make testenv-down` stops the test servers.');
}

main();
