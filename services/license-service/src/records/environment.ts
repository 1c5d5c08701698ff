/**
 * The environment page's domain: a mapping's secrets read from Infisical with the mapping's own
 * machine identity, edited values written back, and for a `frontend` mapping a pipeline on its
 * branch. Only keys that exist in the store are written (a form cannot create new ones), only
 * changed values are sent, and the activity entry names the changed keys with masked values.
 */
import {
  createInfisicalClient,
  HttpError,
  MASKED_VALUE,
  SecretStoreError,
  type InfisicalClient,
  type StoredSecret,
} from '@pelita/kit';
import type { Pool } from 'pg';
import { recordActivity, type Actor } from '../activity/activity-log';
import type { PipelineTrigger } from '../integrations/pipeline-trigger';
import type { LicenseMetrics } from '../metrics';
import type { SecretSeal } from '../store/stored-secret';
import type { Row } from '../store/table-repository';
import { mappingTable } from './mappings';

export interface EnvironmentOptions {
  pool: Pool;
  infisicalUrl: string;
  timeoutMs: number;
  pipelines: PipelineTrigger;
  metrics: LicenseMetrics;
  seal: SecretSeal;
}

export interface SaveOutcome {
  changedKeys: string[];
  pipelineId?: number;
}

const storeFailed = (err: unknown) => {
  if (err instanceof SecretStoreError) {
    const refused = err.status === 401 || err.status === 403;
    return new HttpError(
      502,
      'secret_store_failed',
      refused ? "The secret store refused the mapping's credentials" : err.message,
      { cause: err },
    );
  }
  return err;
};

export function createEnvironments(options: EnvironmentOptions) {
  const { pool, pipelines } = options;

  const clientFor = (mapping: Row): InfisicalClient =>
    createInfisicalClient({
      baseUrl: options.infisicalUrl,
      clientId: String(mapping.client_id),
      clientSecret: options.seal.open(String(mapping.client_secret)),
      timeoutMs: options.timeoutMs,
    });
  const scopeOf = (mapping: Row) => ({
    projectId: String(mapping.project_id),
    environment: String(mapping.client_env),
    secretPath: String(mapping.path),
  });

  async function mappingOrThrow(id: string): Promise<Row> {
    const mapping = await mappingTable.get(pool, id);
    if (!mapping) throw new HttpError(404, 'not_found', 'No such mapping');
    return mapping;
  }

  return {
    mappingOrThrow,

    async read(id: string): Promise<{ mapping: Row; secrets: StoredSecret[] }> {
      const mapping = await mappingOrThrow(id);
      try {
        const secrets = await clientFor(mapping).listSecrets(scopeOf(mapping));
        return { mapping, secrets: secrets.sort((a, b) => a.key.localeCompare(b.key)) };
      } catch (err) {
        throw storeFailed(err);
      }
    },

    async save(actor: Actor, id: string, submitted: Map<string, string>): Promise<SaveOutcome> {
      const mapping = await mappingOrThrow(id);
      const client = clientFor(mapping);
      const scope = scopeOf(mapping);
      const changedKeys: string[] = [];
      try {
        const current = await client.listSecrets(scope);
        for (const secret of current) {
          const value = submitted.get(secret.key);
          if (value === undefined || value === secret.value) continue;
          await client.updateSecret(scope, secret.key, value);
          changedKeys.push(secret.key);
        }
      } catch (err) {
        // What was written before the failure is written: record it, then answer the failure.
        if (changedKeys.length) await recordSave(actor, mapping, changedKeys);
        throw storeFailed(err);
      }
      await recordSave(actor, mapping, changedKeys);
      if (mapping.type !== 'frontend') return { changedKeys };
      const { pipelineId } = await counted(
        pipelines.run(
          String(mapping.branch_source),
          typeof mapping.trigger_token === 'string'
            ? options.seal.open(mapping.trigger_token)
            : null,
          `Pelita license service: mapping ${mapping.id}`,
          async (token) => {
            await pool.query('update secret_mappings set trigger_token = $2 where id = $1', [
              mapping.id,
              options.seal.seal(token),
            ]);
          },
        ),
      );
      await recordActivity(pool, actor, 'pipeline.trigger', 'mapping', mapping.id, [
        { field: 'pipeline', before: null, after: { id: pipelineId, ref: mapping.branch_source } },
      ]);
      return { changedKeys, pipelineId };
    },
  };

  /** A pipeline run, counted by outcome. */
  async function counted<T>(run: Promise<T>): Promise<T> {
    try {
      const result = await run;
      options.metrics.pipelines.inc({ outcome: 'triggered' });
      return result;
    } catch (err) {
      options.metrics.pipelines.inc({ outcome: 'failed' });
      throw err;
    }
  }

  async function recordSave(actor: Actor, mapping: Row, keys: string[]): Promise<void> {
    await recordActivity(
      pool,
      actor,
      'secrets.save',
      'mapping',
      mapping.id,
      keys.map((key) => ({ field: key, before: MASKED_VALUE, after: MASKED_VALUE })),
    );
  }
}

export type Environments = ReturnType<typeof createEnvironments>;
