/**
 * OpenTelemetry tracing. Import this entry (or `./instrument`) before express, http or any
 * database driver is loaded: instrumentations patch modules as they are required.
 * Deliberately imports nothing but OpenTelemetry (and the fast path's registry, which imports
 * nothing).
 */
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { markTracingStarted, takesFastPath } from './fast-path-registry';

let sdk: NodeSDK | undefined;

/**
 * Starts tracing for this process when spans have somewhere to go: `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set. Without it nothing is instrumented: on
 * Node 20 context tracking alone costs a large share of a small request's CPU (measured in
 * `make bench`), which is not worth paying for spans nobody collects.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (sdk) return;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: [new tracing.BatchSpanProcessor(new OTLPTraceExporter())],
    // Logs go through pino and metrics through prom-client (`/metrics`): without these empty
    // lists the SDK would configure OTLP log and metric exporters from the environment.
    logRecordProcessors: [],
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the real traffic; the kit's fast path makes its own
        // (leaner) server span: on a small request this one's emitter binding costs more.
        ignoreIncomingRequestHook: (req) =>
          /^\/(health|ready|metrics)\b/.test(req.url ?? '') || takesFastPath(req),
      }),
      // One span per route handler; a span per middleware layer costs more than it tells.
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER],
      }),
      new UndiciInstrumentation(),
      new PgInstrumentation(),
      new MySQL2Instrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  markTracingStarted();
}

/** Flushes pending spans; called during graceful shutdown. */
export async function shutdownTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
