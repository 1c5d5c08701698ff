/**
 * The sync: fetch role data, merge it into the shared file by top-level keys, write the file,
 * push the whole file to OPA. One pass runs at a time, so the file and OPA always move from one
 * complete document to the next. Requests that arrive while a pass runs wait for the next pass,
 * and all of them share it: a burst of triggers costs at most two passes, and no caller is
 * answered with data fetched before its trigger arrived.
 */
import type { Logger } from '@pelita/kit';
import type { DataFile, StoredDocument } from './data-file';
import { revisionOf, type OpaClient } from './opa-client';
import { ALL_SOURCES, type Source } from './policy-data';
import type { RoleDataClient } from './role-data-client';
import { CorruptDataFileError, UserServiceStatusError } from './sync-errors';
import type { SyncMetrics, SyncOutcome, Trigger } from './sync-metrics';

export interface SyncResult {
  /** Revision (content hash) of the document OPA holds after the pass. */
  revision: string;
  /** Entries fetched per requested source: users for `user_roles`, roles for `role_grants`. */
  counts: Partial<Record<Source, number>>;
}

export interface VerifyResult {
  /** Revision OPA holds; undefined when there is no file to hold yet. */
  revision: string | undefined;
  /** True when OPA had lost the document and it was pushed again. */
  restored: boolean;
}

export interface PolicySync {
  /** Fetches `sources` and brings the file and OPA up to date; rejects with a sync error. */
  sync(sources: readonly Source[], trigger: Trigger): Promise<SyncResult>;
  /** Makes sure OPA holds the file's document, pushing it again when it does not. */
  verify(trigger: Trigger): Promise<VerifyResult>;
  /** Resolves once no pass is running or waiting (used on shutdown). */
  idle(): Promise<void>;
}

export interface PolicySyncDeps {
  roleData: RoleDataClient;
  dataFile: DataFile;
  opa: OpaClient;
  metrics: SyncMetrics;
  logger: Logger;
}

type Fetched = { ok: true; count: number } | { ok: false; error: Error };

interface PassOutcome {
  fetched: Map<Source, Fetched>;
  /** What OPA holds after the pass, when the pass got that far. */
  stored?: StoredDocument;
  restored: boolean;
  /** Failure of the file or OPA step (or an unexpected one). */
  error?: Error;
}

interface Batch {
  sources: Set<Source>;
  verify: boolean;
  triggers: Set<Trigger>;
  settlers: Array<(outcome: PassOutcome) => void>;
}

export function createPolicySync(deps: PolicySyncDeps): PolicySync {
  const { roleData, dataFile, opa, metrics, logger } = deps;
  let running: Promise<void> | undefined;
  let pending: Batch | undefined;

  function enqueue(sources: readonly Source[], verify: boolean, trigger: Trigger) {
    metrics.triggers.inc({ trigger });
    pending ??= { sources: new Set(), verify: false, triggers: new Set(), settlers: [] };
    const batch = pending;
    for (const source of sources) batch.sources.add(source);
    batch.verify ||= verify;
    batch.triggers.add(trigger);
    const outcome = new Promise<PassOutcome>((resolve) => batch.settlers.push(resolve));
    running ??= runBatches();
    return outcome;
  }

  async function runBatches(): Promise<void> {
    while (pending) {
      const batch = pending;
      pending = undefined;
      let outcome: PassOutcome;
      try {
        outcome = await runPass(batch);
      } catch (err) {
        outcome = { fetched: new Map(), restored: false, error: asError(err) };
      }
      for (const settle of batch.settlers) settle(outcome);
    }
    running = undefined;
  }

  async function runPass(batch: Batch): Promise<PassOutcome> {
    const started = performance.now();
    const outcome: PassOutcome = { fetched: new Map(), restored: false };
    try {
      // Read before fetching (the seed's steps 2 and 1): which sources to fetch depends on the
      // file, and within a serialised pass the order of the two does not matter otherwise.
      const current = await readCurrent();
      // A sync without a usable file fetches every source: the first document written is complete.
      const sources =
        current || batch.sources.size === 0
          ? [...batch.sources]
          : [...new Set([...batch.sources, ...ALL_SOURCES])];
      const values = await fetchAll(sources, outcome.fetched);
      if (Object.keys(values).length > 0) {
        const stored = await dataFile.write({ ...current?.document, ...values });
        await push(stored.text, 'sync');
        outcome.stored = stored;
      } else if (batch.verify && current) {
        outcome.restored = await restoreIfLost(current);
        outcome.stored = current;
      }
    } catch (err) {
      outcome.error = asError(err);
    }
    record(batch, outcome, (performance.now() - started) / 1000);
    return outcome;
  }

  async function readCurrent(): Promise<StoredDocument | undefined> {
    try {
      return await dataFile.read();
    } catch (err) {
      if (!(err instanceof CorruptDataFileError)) throw err;
      // Rewritten from scratch by this pass; better than never syncing again.
      logger.error({ err, file: dataFile.path }, 'policy data file is corrupt; rebuilding it');
      return undefined;
    }
  }

  async function fetchAll(sources: Source[], fetched: Map<Source, Fetched>) {
    const values: Partial<Record<Source, Record<string, unknown[]>>> = {};
    const results = await Promise.allSettled(sources.map((source) => roleData.fetch(source)));
    results.forEach((result, index) => {
      const source = sources[index] as Source;
      if (result.status === 'fulfilled') {
        values[source] = result.value;
        fetched.set(source, { ok: true, count: Object.keys(result.value).length });
      } else {
        fetched.set(source, { ok: false, error: asError(result.reason) });
      }
    });
    return values;
  }

  async function restoreIfLost(current: StoredDocument): Promise<boolean> {
    if ((await opa.readRevision()) === revisionOf(current.text)) return false;
    await push(current.text, 'restore');
    return true;
  }

  async function push(text: string, reason: 'sync' | 'restore'): Promise<void> {
    try {
      await opa.pushDocument(text);
      metrics.opaPushes.inc({ reason, outcome: 'success' });
    } catch (err) {
      metrics.opaPushes.inc({ reason, outcome: 'error' });
      throw err;
    }
  }

  function record(batch: Batch, outcome: PassOutcome, seconds: number): void {
    const now = Date.now() / 1000;
    const outcomes: SyncOutcome[] = [];
    // Sources the pass never fetched (the file could not be read) failed with the pass.
    const kinds = new Set([...batch.sources, ...outcome.fetched.keys()]);
    for (const source of kinds) {
      const fetched = outcome.fetched.get(source);
      const result =
        fetched && !fetched.ok ? classify(fetched.error) : outcome.error ? 'error' : 'success';
      metrics.syncs.inc({ kind: source, outcome: result });
      if (result === 'success') metrics.lastSuccess.set({ kind: source }, now);
      outcomes.push(result);
    }
    if (kinds.size === 0) {
      const result = outcome.error ? 'error' : 'success';
      metrics.syncs.inc({ kind: 'verify', outcome: result });
      outcomes.push(result);
    }
    const worst = outcomes.includes('error')
      ? 'error'
      : outcomes.includes('rejected')
        ? 'rejected'
        : 'success';
    metrics.duration.observe({ outcome: worst }, seconds);
    log(batch, outcome, Math.round(seconds * 1000));
  }

  function log(batch: Batch, outcome: PassOutcome, durationMs: number): void {
    const context = {
      triggers: [...batch.triggers],
      sources: [...outcome.fetched.keys()],
      durationMs,
      ...(outcome.stored ? { revision: revisionOf(outcome.stored.text) } : {}),
    };
    for (const [source, fetched] of outcome.fetched) {
      if (!fetched.ok) logger.warn({ ...context, source, err: fetched.error }, 'fetch failed');
    }
    if (outcome.error) {
      logger.error({ ...context, err: outcome.error }, 'policy data sync failed');
    } else if (outcome.restored) {
      logger.warn(context, 'OPA had lost the policy data; pushed it again');
    } else if (outcome.fetched.size > 0) {
      if (outcome.stored) logger.info(context, 'policy data synced');
    } else {
      logger.debug(context, 'OPA holds the policy data');
    }
  }

  return {
    async sync(sources, trigger) {
      const outcome = await enqueue(sources, false, trigger);
      const counts: SyncResult['counts'] = {};
      for (const source of sources) {
        const fetched = outcome.fetched.get(source);
        if (fetched && !fetched.ok) throw fetched.error;
        if (fetched?.ok) counts[source] = fetched.count;
      }
      if (outcome.error) throw outcome.error;
      if (!outcome.stored) throw new Error('sync pass ended without a document');
      return { revision: revisionOf(outcome.stored.text), counts };
    },
    async verify(trigger) {
      const outcome = await enqueue([], true, trigger);
      if (outcome.error) throw outcome.error;
      return {
        revision: outcome.stored ? revisionOf(outcome.stored.text) : undefined,
        restored: outcome.restored,
      };
    },
    async idle() {
      while (running) await running;
    },
  };
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function classify(err: unknown): SyncOutcome {
  return err instanceof UserServiceStatusError ? 'rejected' : 'error';
}
