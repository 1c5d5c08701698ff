/**
 * The OpenTelemetry SDK as the kit configures it. Loaded by `startTracing` only when spans have
 * somewhere to go: the SDK and its instrumentations take a quarter of a second to load, which
 * every importer of the kit (a test file, a process that does not trace) would pay otherwise.
 */
import type { IncomingMessage } from 'node:http';
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

/** `takesFastPath`: requests the kit's fast path serves (fast-path-registry.ts). */
export function createTracingSdk(
  serviceName: string,
  takesFastPath: (req: IncomingMessage) => boolean,
): NodeSDK {
  return new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
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
}
