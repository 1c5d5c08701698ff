// Tracing first: its instrumentations patch http and fetch as they load.
import '@pelita/kit/instrument';
import os from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, createMetrics, loadConfig, runMain, serve } from '@pelita/kit';
import { createApp } from './app';
import { settingsSchema } from './config';
import { Controller } from './controller/controller';
import { LeaderElector } from './controller/leader-election';
import { KubeClient } from './kube/client';
import { createOperatorMetrics } from './metrics';
import { loadPolicies } from './policies';

async function main(): Promise<void> {
  const settings = loadConfig(settingsSchema);
  const logger = createLogger({ name: 'pelita-operator', level: settings.LOG_LEVEL });
  const metrics = createMetrics();
  const operatorMetrics = createOperatorMetrics(metrics);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault(); // in-cluster service account, or KUBECONFIG outside a cluster
  const client = new KubeClient(kubeConfig, operatorMetrics);
  const identity = settings.POD_NAME || `${os.hostname()}-${process.pid}`;

  const controller = new Controller({
    client,
    logger,
    metrics: operatorMetrics,
    policies: loadPolicies(settings.POLICIES_DIR),
    identity,
    namespace: settings.WATCH_NAMESPACE || undefined,
    concurrency: settings.MAX_CONCURRENT_RECONCILES,
    resyncMs: settings.RESYNC_SECONDS * 1000,
    allowedImageRegistries: settings.ALLOWED_IMAGE_REGISTRIES,
  });
  const startController = () => {
    operatorMetrics.isLeader.set(1);
    controller.start().catch((err: unknown) => {
      logger.fatal({ err }, 'controller failed to start');
      process.exit(1);
    });
  };

  const elector = settings.LEADER_ELECTION
    ? new LeaderElector({
        client,
        namespace: settings.LEADER_ELECTION_NAMESPACE || settings.POD_NAMESPACE,
        name: settings.LEADER_ELECTION_LEASE_NAME,
        identity,
        leaseDurationMs: settings.LEASE_DURATION_SECONDS * 1000,
        renewDeadlineMs: settings.RENEW_DEADLINE_SECONDS * 1000,
        retryPeriodMs: settings.RETRY_PERIOD_SECONDS * 1000,
        logger,
        onStartedLeading: startController,
        // Another replica may already be acting: stop at once, let Kubernetes restart us.
        onStoppedLeading: () => process.exit(1),
      })
    : undefined;

  const app = createApp({ logger, metrics, healthy: () => elector?.healthy() ?? true });
  await serve(app, {
    port: settings.PORT,
    logger,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    onShutdown: [
      async () => {
        await controller.stop(); // finishes the reconciles under way
        operatorMetrics.isLeader.set(0);
      },
      () => elector?.stop(), // gives the lease up so a standby takes over now
      () => client.close(), // the pooled connections, once nothing sends on them
    ],
  });
  logger.info({ identity, leaderElection: settings.LEADER_ELECTION }, 'operator started');
  if (elector) elector.start();
  else startController();
}

runMain('pelita-operator', main);
