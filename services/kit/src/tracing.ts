/**
 * OpenTelemetry tracing. Import this entry (or `./instrument`) before express, http or any
 * database driver is loaded: instrumentations patch modules as they are required.
 * Deliberately imports nothing but the fast path's registry (which imports nothing): the SDK
 * itself (`tracing-sdk.ts`) is loaded by `startTracing`, in a process that traces.
 */
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type * as TracingSdk from './tracing-sdk';
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
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use (see tracing-sdk.ts)
  const { createTracingSdk } = require('./tracing-sdk') as typeof TracingSdk;
  sdk = createTracingSdk(env.OTEL_SERVICE_NAME ?? serviceName, takesFastPath);
  sdk.start();
  markTracingStarted();
}

/** Flushes pending spans; called during graceful shutdown. */
export async function shutdownTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
