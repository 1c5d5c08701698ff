// The output of real child processes (node -e) through createDevOutput: to the files in full,
// to the "terminal" (a stream that is not a TTY: JSON) one line per event.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createDevOutput } from '../../src/dev-output';
import { PROBE_REQUEST_ID } from '../../src/log-line';

/** A process that logs like a service, probe line and all, then warns like the AWS SDK. */
const SERVICE = `
const log = (o) => console.log(JSON.stringify({ level: 'info', time: '2026-11-28T06:00:00.000Z', service: 's', ...o }));
log({ msg: 'listening', port: 4001 });
log({ msg: 'request completed', request_id: '${PROBE_REQUEST_ID}', req: { method: 'GET', url: '/ready' }, res: { statusCode: 503 } });
process.emitWarning('The same warning\\nover two lines');
setTimeout(() => process.exit(${'${CODE}'}), 100);
`;

function run(code: number) {
  return spawn(process.execPath, ['-e', SERVICE.replace('${CODE}', String(code))], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function capture(format: string | undefined) {
  const logDir = mkdtempSync(join(tmpdir(), 'dev-output-'));
  const out = new PassThrough() as PassThrough & { isTTY?: boolean };
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const output = createDevOutput({
    logDir,
    out: out as unknown as NodeJS.WriteStream,
    format,
    names: ['one', 'two'],
  });
  output.header(['Chat with Pelita: http://127.0.0.1:4001/chat', '']);
  const closed = ['one', 'two'].map((name, index) => {
    const child = run(index); // `two` exits 1: not asked to
    output.follow(name, child);
    return new Promise((resolve) => child.once('close', resolve));
  });
  await Promise.all(closed);
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { output, text, logDir };
}

describe('createDevOutput', () => {
  it('writes JSON to a pipe: the header as dev events first, the probe hidden, a warning once', async () => {
    const { output, text } = await capture(undefined);
    expect(output.format).toBe('json');
    const events = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events[0]).toMatchObject({
      process: 'dev',
      msg: 'Chat with Pelita: http://127.0.0.1:4001/chat',
    });
    const shown = events.slice(1).map((event) => `${String(event.process)} ${String(event.msg)}`);
    expect(shown.filter((line) => line.endsWith('listening')).sort()).toEqual([
      'one listening',
      'two listening',
    ]);
    expect(shown.filter((line) => line.includes('/ready'))).toEqual([]);
    expect(shown.filter((line) => line.includes('The same warning'))).toHaveLength(1);
    expect(shown.find((line) => line.includes('same warning'))).toMatch(
      /Warning: The same warning over two lines$/,
    );
    // `one` exited 0 on its own; `two` failed: both said (nothing was stopping them).
    expect(events.filter((event) => event.msg === 'exited (1)')).toMatchObject([
      { process: 'two', level: 'error' },
    ]);
  });

  it('keeps every line in full JSON in the process file, the probe and the warning too', async () => {
    const { logDir } = await capture(undefined);
    const lines = readFileSync(join(logDir, 'one.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.msg)).toEqual([
      'listening',
      'request completed',
      'Warning: The same warning over two lines',
      'exited (0)',
    ]);
    expect(lines[1]).toMatchObject({ request_id: PROBE_REQUEST_ID, service: 's' });
  });

  it('writes one pretty line per event when asked, the header as written', async () => {
    const { text } = await capture('pretty');
    const lines = text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['Chat with Pelita: http://127.0.0.1:4001/chat', '']);
    expect(lines).toContain('one | 06:00:00 listening port=4001');
    expect(lines.filter((line) => line.includes('The same warning'))).toHaveLength(1);
  });
});
