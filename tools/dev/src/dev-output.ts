/**
 * Where `make dev`'s output goes: every process's lines, in full JSON, to `<name>.log` in the
 * logs directory (made afresh each run), and to the terminal as one short line per event —
 * pretty (coloured on a terminal) or, when standard output is a pipe, JSON. Node's warnings are
 * shown once however many processes print them; the access-log lines of make dev's own
 * readiness probes are not shown.
 */
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  isOwnProbe,
  jsonLine,
  NAME_COLOURS,
  parseLine,
  prettyLine,
  type Level,
  type LogEvent,
} from './log-line';
import { onceEach, warningLines } from './node-warnings';

export type OutputFormat = 'pretty' | 'json';

export interface DevOutputOptions {
  logDir: string;
  /** The terminal (or pipe): process.stdout. */
  out: NodeJS.WriteStream;
  /** `DEV_LOG_FORMAT`: `pretty` or `json`; by default pretty on a terminal, JSON on a pipe. */
  format?: string | undefined;
  /** `NO_COLOR` set: no colours even on a terminal. */
  noColour?: boolean;
  /** Every process that may write, in the order they are listed: each gets a colour in turn. */
  names: string[];
}

export interface DevOutput {
  format: OutputFormat;
  /** make dev's own opening lines: as written on a terminal, as `dev` events in JSON. */
  header(lines: string[]): void;
  /** One event of make dev itself (`dev | Ready: ...`). */
  note(msg: string, level?: Level): void;
  /** Follows a child's standard output and error until it exits. */
  follow(name: string, child: ChildProcess): void;
  /** Ctrl-C: exits are expected from now on; one line says when every process is gone. */
  stopping(): void;
}

export function createDevOutput(options: DevOutputOptions): DevOutput {
  const { out, logDir } = options;
  const format: OutputFormat =
    options.format === 'json' || options.format === 'pretty'
      ? options.format
      : out.isTTY
        ? 'pretty'
        : 'json';
  const colour = format === 'pretty' && out.isTTY === true && !options.noColour;
  mkdirSync(logDir, { recursive: true });
  const firstTime = onceEach();
  const names = ['dev', ...options.names];
  const nameWidth = Math.max(...names.map((name) => name.length));
  const colourOf = (name: string) => {
    const index = names.indexOf(name);
    return colour && index >= 0 ? NAME_COLOURS[index % NAME_COLOURS.length] : undefined;
  };
  let running = 0;
  let stopping = false;

  const show = (event: LogEvent) => {
    if (isOwnProbe(event)) return;
    const line =
      format === 'json'
        ? jsonLine(event)
        : prettyLine(event, {
            nameWidth,
            nameColour: colourOf(event.process),
            ...(out.isTTY && out.columns ? { maxWidth: out.columns } : {}),
          });
    out.write(`${line}\n`);
  };
  const event = (process: string, level: Level, msg: string): LogEvent => ({
    process,
    time: new Date().toISOString(),
    level,
    msg,
    fields: {},
  });

  return {
    format,
    header(lines) {
      if (format === 'pretty') out.write(lines.map((line) => `${line}\n`).join(''));
      else for (const line of lines.filter(Boolean)) show(event('dev', 'info', line.trim()));
    },
    note(msg, level = 'info') {
      show(event('dev', level, msg));
    },
    follow(name, child) {
      const file: WriteStream = createWriteStream(join(logDir, `${name}.log`));
      const record = (logged: LogEvent, shown: boolean) => {
        file.write(`${jsonLine(logged)}\n`);
        if (shown) show(logged);
      };
      const warnings = warningLines((text) => {
        record(event(name, 'warn', text), firstTime(text));
      });
      for (const stream of ['stdout', 'stderr'] as const) {
        const source = child[stream];
        if (!source) continue;
        createInterface({ input: source, crlfDelay: Infinity }).on('line', (line) => {
          if (stream === 'stderr' && warnings.take(line)) return;
          if (line.trim() === '') return;
          record(parseLine(name, stream, line, new Date()), true);
        });
      }
      running += 1;
      child.once('close', (code, signal) => {
        warnings.flush();
        running -= 1;
        const expected = stopping && (signal !== null || code === 0);
        // A process that ends on its own is news; one that stops on Ctrl-C is not.
        record(event(name, expected ? 'info' : 'error', `exited (${signal ?? code})`), !expected);
        file.end();
        if (stopping && running === 0) show(event('dev', 'info', 'every process has stopped'));
      });
    },
    stopping() {
      stopping = true;
    },
  };
}
