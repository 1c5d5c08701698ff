// Every server the test environment runs, in the order they are reported and written to the env file.
// A new server is one module under servers/ implementing Server, added here.
import { type Server } from './server';
import { actionlint } from './servers/actionlint';
import { chromium } from './servers/chromium';
import { documentTools } from './servers/document-tools';
import { hadolint } from './servers/hadolint';
import { kube } from './servers/kube';
import { mariadb } from './servers/mariadb';
import { minio } from './servers/minio';
import { networkPolicy } from './servers/network-policy';
import { node } from './servers/node';
import { opa } from './servers/opa';
import { opensearch } from './servers/opensearch';
import { pgbouncer } from './servers/pgbouncer';
import { postgres } from './servers/postgres';
import { prometheus } from './servers/prometheus';
import { redis } from './servers/redis';
import { schemathesis } from './servers/schemathesis';
import { smtp } from './servers/smtp';

export const servers: readonly Server[] = [
  postgres,
  pgbouncer,
  mariadb,
  redis,
  opensearch,
  minio,
  opa,
  prometheus,
  kube,
  node,
  networkPolicy,
  smtp,
  schemathesis,
  hadolint,
  actionlint,
  documentTools,
  chromium,
];
