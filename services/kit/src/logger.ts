/** pino JSON logs: every line carries the trace id when there is one, and no credential. */
import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redact, redactString } from './redact';

export type { Logger } from 'pino';

export interface LoggerOptions {
  name: string;
  level?: string;
  /**
   * Where lines go; standard output, written asynchronously, when omitted (tests pass a
   * capturing stream).
   */
  destination?: DestinationStream;
}

export function createLogger({ name, level = 'info', destination }: LoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: {
      level: (label) => ({ level: label }),
      // Runs on every object logged, at any depth: the one place credentials are removed.
      log: (object) => redact(object) as Record<string, unknown>,
    },
    serializers: { err: redact },
    hooks: {
      // Messages are redacted too: an error text may carry a connection URL.
      logMethod(args, method) {
        for (let index = 0; index < args.length; index++) {
          const arg = args[index];
          if (typeof arg === 'string') args[index] = redactString(arg);
        }
        method.apply(this, args);
      },
    },
    mixin: traceFields,
  };
  return pino(options, destination ?? standardOutput());
}

/**
 * Standard output without a blocking write per line: lines written while a write is under way
 * are gathered and go out together in the next one. One `writeSync` per access-log line was the
 * largest single cost of a small proxied request after node's own HTTP work (issue 17, figures in
 * tools/bench's README). pino flushes what is pending, synchronously, when the process exits —
 * after SIGTERM's drain, `process.exit` and an uncaught exception alike; only a process killed
 * outright (SIGKILL, the kernel's OOM killer) can lose the lines of its last write.
 */
function standardOutput(): DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

function traceFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
