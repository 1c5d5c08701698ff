/**
 * One line of a process's output as `make dev` shows it: parsed into an event (the kit's pino
 * JSON, the stand-ins' JSON, or plain text), then written as one short service-prefixed line for
 * a terminal or as one JSON object for a pipe. Pure: the terminal and the files are elsewhere.
 */

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LogEvent {
  /** The process it came from (`ocr-worker`, not the `ocr-service` its logger names). */
  process: string;
  /** ISO time: the line's own, else when make dev read it. */
  time: string;
  level: Level;
  msg: string;
  /** The rest of a JSON line, as written (`time`, `level` and `msg` taken out). */
  fields: Record<string, unknown>;
}

/** pino's numeric levels, for a logger configured without the kit's label formatter. */
const PINO_LEVELS: Record<number, Level> = {
  10: 'debug',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** A level word at the start of a plain line (Python's logging, uvicorn, Go's log). */
const TEXT_LEVEL = /^(DEBUG|INFO|WARN(?:ING)?|ERROR|CRITICAL|FATAL)\b:?\s*/i;

function levelOf(value: unknown): Level | undefined {
  if (typeof value === 'number') return PINO_LEVELS[value];
  if (typeof value !== 'string') return undefined;
  const word = value.toLowerCase();
  if (word === 'warning') return 'warn';
  if (word === 'critical') return 'fatal';
  return (['debug', 'info', 'warn', 'error', 'fatal'] as const).find((level) => level === word);
}

/**
 * The event of one output line of `process`. Plain text on standard error that names no level is
 * a warning: that is what processes write there (a crash's stack, a library's complaint).
 */
export function parseLine(
  process: string,
  stream: 'stdout' | 'stderr',
  line: string,
  now: Date,
): LogEvent {
  const json = parseObject(line);
  if (json) {
    const { level, time, msg, ...fields } = json;
    return {
      process,
      time: typeof time === 'string' ? time : now.toISOString(),
      level: levelOf(level) ?? 'info',
      msg: typeof msg === 'string' ? msg : '',
      fields,
    };
  }
  const word = TEXT_LEVEL.exec(line);
  return {
    process,
    time: now.toISOString(),
    level: (word && levelOf(word[1])) ?? (stream === 'stderr' ? 'warn' : 'info'),
    msg: word ? line.slice(word[0].length) : line,
    fields: {},
  };
}

function parseObject(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The request id make dev's own readiness probes send: their access-log lines are not shown. */
export const PROBE_REQUEST_ID = 'make-dev-probe';

/** Whether the event is the access-log line of one of make dev's own probes. */
export function isOwnProbe(event: LogEvent): boolean {
  return event.fields.request_id === PROBE_REQUEST_ID;
}

/** The event as one JSON line: the process first, then the line's own fields. */
export function jsonLine(event: LogEvent): string {
  const { process, time, level, msg, fields } = event;
  return JSON.stringify({ process, time, level, ...(msg ? { msg } : {}), ...fields });
}

export interface PrettyOptions {
  /** Width the process names are padded to, so the messages line up. */
  nameWidth: number;
  /** ANSI colour code of the process name; no colours at all when omitted. */
  nameColour?: string | undefined;
  /** Longest line; longer ones end in `…` (the full line is in the log file). */
  maxWidth?: number | undefined;
}

/** Colours of the process names, given in turn as docker compose does. */
export const NAME_COLOURS = ['36', '32', '35', '34', '33', '96', '92', '95', '94', '93'];

const DIM = '2';
const RED = '31';
const YELLOW = '33';

function paint(code: string | undefined, text: string): string {
  return code === undefined ? text : `\u001b[${code}m${text}\u001b[0m`;
}

/** Fields shown by the pretty line's own wording, or noise in a terminal. */
const UNSHOWN = new Set([
  'service', // the prefix names the process
  'pid',
  'hostname',
  'trace_id',
  'span_id',
  'request_id',
  'req',
  'res',
  'responseTime',
]);

/**
 * `core-backend  | 12:00:01 GET /chat 200 12ms` — the process, the time of day, the level when
 * it is not info, the message (an access-log line as method, path, status and time) and the
 * other fields as `key=value`.
 */
export function prettyLine(event: LogEvent, options: PrettyOptions): string {
  const coloured = options.nameColour !== undefined;
  const name = paint(options.nameColour, event.process.padEnd(options.nameWidth));
  const clock = paint(coloured ? DIM : undefined, event.time.slice(11, 19));
  const levelColour = event.level === 'warn' ? YELLOW : RED;
  const level =
    event.level === 'info'
      ? ''
      : `${paint(coloured ? levelColour : undefined, event.level.toUpperCase())} `;
  const head = `${name} | ${clock} ${level}`;
  const text = [summaryOf(event), ...fieldTexts(event.fields)].filter(Boolean).join(' ');
  const line = head + text;
  const width = options.maxWidth;
  if (width === undefined || visibleLength(line) <= width) return line;
  // The head is short and fixed; what is cut is the end of the text.
  const room = Math.max(width - visibleLength(head) - 1, 10);
  return `${head}${text.slice(0, room)}…`;
}

/** The message, or for an access-log line `GET /path 200 12ms` (with `aborted` when it was). */
function summaryOf(event: LogEvent): string {
  const req = event.fields.req as { method?: unknown; url?: unknown } | undefined;
  const res = event.fields.res as { statusCode?: unknown } | undefined;
  if (req && res && typeof req.method === 'string' && typeof req.url === 'string') {
    const time = event.fields.responseTime;
    return [
      req.method,
      req.url,
      String(res.statusCode),
      typeof time === 'number' ? `${time}ms` : '',
      event.msg === 'request aborted' ? 'aborted' : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  return event.msg;
}

function fieldTexts(fields: Record<string, unknown>): string[] {
  return Object.entries(fields)
    .filter(([key]) => !UNSHOWN.has(key))
    .map(([key, value]) => `${key}=${valueText(value)}`);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  // An error: its message says what happened (its stack is in the log file).
  if (value !== null && typeof value === 'object' && 'message' in value) {
    return JSON.stringify(String(value.message));
  }
  return JSON.stringify(value) ?? String(value);
}

function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex -- the ANSI colour codes this module writes
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}
