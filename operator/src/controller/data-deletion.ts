/**
 * Carries out `deletionPolicy: Delete` for the items decided on (install-data.ts): reads the
 * credentials from the Secrets the install's dependencies reference (only now, by name) and
 * hands each item to the module of its server kind (src/data/). Every item is tried; the ones
 * that failed are returned with the server and the error, never a credential.
 */
import type { PlatformInstall, SecretKeyRef } from '../crd/platform-install';
import { deleteObjectsUnder } from '../data/bucket-objects';
import { dropSchema, dropTables } from '../data/database-tables';
import { deleteIndexes, deleteTenantDocuments } from '../data/opensearch-indexes';
import { deleteKeysUnder } from '../data/redis-keys';
import { describeApiError } from '../kube/client';
import { SERVER_KIND, type DataItem } from './install-data';

/** Reads one key of a Secret in the install's namespace; undefined when the Secret or key is absent. */
export type SecretValue = (ref: SecretKeyRef) => Promise<string | undefined>;

export interface DeletionFailure {
  item: DataItem;
  /** `redis redis://host:6379/7: connect ECONNREFUSED ...` */
  message: string;
}

export async function deleteInstallData(
  install: PlatformInstall,
  items: readonly DataItem[],
  secret: SecretValue,
): Promise<DeletionFailure[]> {
  const failures: DeletionFailure[] = [];
  for (const item of items) {
    try {
      await deleteItem(install, item, secret);
    } catch (err) {
      failures.push({
        item,
        message: `${SERVER_KIND[item.kind]} ${item.server}: ${describeApiError(err)}`,
      });
    }
  }
  return failures;
}

async function deleteItem(
  install: PlatformInstall,
  item: DataItem,
  secret: SecretValue,
): Promise<void> {
  const { postgres, redis, opensearch, s3 } = install.spec.dependencies;
  switch (item.kind) {
    case 'index': {
      const server = {
        OPENSEARCH_URL: item.server,
        OPENSEARCH_USERNAME: await optional(secret, opensearch?.usernameSecretRef),
        OPENSEARCH_PASSWORD: await optional(secret, opensearch?.passwordSecretRef),
      };
      // A shared index stays: the other installs' documents are in it.
      if (item.tenant) await deleteTenantDocuments(server, item.index, item.tenant);
      else await deleteIndexes(server, [item.index]);
      return;
    }
    case 'keys':
      await deleteKeysUnder(
        {
          REDIS_URL: item.server,
          REDIS_PASSWORD: await optional(secret, redis?.passwordSecretRef),
        },
        item.prefix,
      );
      return;
    case 'objects': {
      if (!s3) throw new Error('spec.dependencies.s3 is unset: no credentials for the bucket');
      await deleteObjectsUnder(
        {
          endpoint: item.server,
          region: s3.region,
          forcePathStyle: s3.forcePathStyle,
          accessKey: await required(secret, s3.accessKeySecretRef),
          secretKey: await required(secret, s3.secretKeySecretRef),
        },
        item.bucket,
        item.prefix,
      );
      return;
    }
    case 'schema':
    case 'tables': {
      const server = {
        url: `${item.server}/${encodeURIComponent(item.database)}`,
        user: await optional(secret, postgres?.usernameSecretRef),
        password: await optional(secret, postgres?.passwordSecretRef),
      };
      if (item.kind === 'schema') await dropSchema(server, item.schema);
      else await dropTables(server, item.tables);
      return;
    }
  }
}

async function optional(
  secret: SecretValue,
  ref: SecretKeyRef | undefined,
): Promise<string | undefined> {
  return ref ? required(secret, ref) : undefined;
}

async function required(secret: SecretValue, ref: SecretKeyRef): Promise<string> {
  const value = await secret(ref);
  if (value === undefined) throw new Error(`Secret ${ref.name} has no key ${ref.key}`);
  return value;
}
