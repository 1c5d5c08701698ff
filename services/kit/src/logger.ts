/** pino JSON logs: every line carries the trace id when there is one, and no credential. */
import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redact, redactString } from './redact';

export type { Logger } from 'pino';

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Where lines go; standard output when omitted (tests pass a capturing stream). */
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
  return destination ? pino(options, destination) : pino(options);
}

function traceFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
