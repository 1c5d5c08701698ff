/**
 * Application keys of a workspace's open API and widgets. A key is `pk_<prefix>_<secret>`: the
 * prefix finds the record and is shown in lists; only the SHA-256 digest of the secret is stored
 * (the secret is 32 random bytes, so a plain digest cannot be guessed back), and the whole key is
 * shown once, when it is made. Revoked keys stay listed. `last_used_at` is written at most once
 * per `lastUsedIntervalMs` per key.
 *
 * A key answers only from its **sources** (documents, folders, topics, audios its owner chose;
 * none: nothing), and only within what its maker may still use: `principal` is the maker's
 * membership narrowed to the key's scope, and every access list honours the narrowing.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { badRequest, notFound } from '@pelita/kit';
import type { AccessLists } from '../access/access-lists';
import type { Paging } from '../paging';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import type { Permission } from '../workspaces/permissions';
import type { Membership } from '../workspaces/workspaces';
import type { AppKeyRepository, AppKeyRow, KeySource } from './app-key-repository';

export interface AppKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Other keys of the workspace whose sessions this one reads through the history API. */
  readsSessionsOf: string[];
}

/** What the owner chooses for a key: its sources and whose sessions it may read. */
export interface KeyScopeInput {
  sources: KeySource[];
  reads_sessions_of: string[];
}

const KEY_PATTERN = /^pk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

const toAppKey = (row: AppKeyRow): AppKey => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  prefix: row.prefix,
  createdBy: row.created_by,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
  readsSessionsOf: row.reads_sessions_of,
});

const digest = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

export interface AppKeysDeps {
  repository: AppKeyRepository;
  workspaces: MemberCheck;
  access: AccessLists;
  lastUsedIntervalMs: number;
}

export function createAppKeys(deps: AppKeysDeps) {
  const { repository } = deps;
  const lastWritten = new Map<string, number>();
  const manager = (actor: Actor) => memberOf(deps.workspaces, actor, 'workspace.manage');

  async function withSources(rows: AppKeyRow[]) {
    const sources = await repository.sources(rows.map((row) => row.id));
    return rows.map((row) => ({ ...toAppKey(row), sources: sources.get(row.id) ?? [] }));
  }

  /** 400 unless every source is in the workspace and the owner may use it, and every key is. */
  async function checkScope(owner: Membership, scope: KeyScopeInput): Promise<void> {
    for (const source of scope.sources) {
      if (!(await deps.access.canUse(owner, source.type, source.id))) {
        throw badRequest(`sources: ${source.type} ${source.id} is not one you may use here`);
      }
    }
    const wanted = [...new Set(scope.reads_sessions_of)];
    const known = await repository.idsIn(owner.workspaceId, wanted);
    const strangers = wanted.filter((id) => !known.includes(id));
    if (strangers.length > 0) {
      throw badRequest(`reads_sessions_of: not keys of this workspace: ${strangers.join(', ')}`);
    }
  }

  async function ownKey(workspaceId: string, id: string): Promise<AppKeyRow> {
    const row = await repository.find(workspaceId, id);
    if (!row) throw notFound(`App key ${id} does not exist`);
    return row;
  }

  return {
    /** Makes a key; the answer carries the whole key, which is never shown again. */
    async create(actor: Actor, input: { name: string } & KeyScopeInput) {
      const owner = await manager(actor);
      await checkScope(owner, input);
      const prefix = randomBytes(6).toString('hex');
      const secret = randomBytes(32).toString('base64url');
      const row = await repository.insert({
        id: randomUUID(),
        workspace_id: owner.workspaceId,
        name: input.name,
        prefix,
        secret_hash: digest(secret),
        created_by: owner.userId,
        reads_sessions_of: [...new Set(input.reads_sessions_of)],
      });
      await repository.setScope(row.id, input.sources, row.reads_sessions_of);
      const [created] = await withSources([row]);
      return { ...created!, key: `pk_${prefix}_${secret}` };
    },

    async list(actor: Actor, paging: Paging) {
      const { workspaceId } = await manager(actor);
      const { rows, total } = await repository.page(workspaceId, paging);
      return { rows: await withSources(rows), total };
    },

    /** Replaces what the key may answer from and whose sessions it reads. */
    async setScope(actor: Actor, id: string, scope: KeyScopeInput) {
      const owner = await manager(actor);
      const { workspaceId } = owner;
      await ownKey(workspaceId, id);
      await checkScope(owner, scope);
      await repository.setScope(id, scope.sources, [...new Set(scope.reads_sessions_of)]);
      const [updated] = await withSources([await ownKey(workspaceId, id)]);
      return updated!;
    },

    async revoke(actor: Actor, id: string) {
      const { workspaceId } = await manager(actor);
      const row = await repository.revoke(workspaceId, id);
      if (!row) throw notFound(`App key ${id} does not exist`);
      const [revoked] = await withSources([row]);
      return revoked!;
    },

    /** The live key's record, or undefined for anything else (unknown, revoked, malformed). */
    async verify(key: string): Promise<AppKey | undefined> {
      const match = KEY_PATTERN.exec(key);
      if (!match) return undefined;
      const row = await repository.liveByPrefix(match[1]!);
      if (!row || !timingSafeEqual(digest(match[2]!), row.secret_hash)) return undefined;
      const now = Date.now();
      if (now - (lastWritten.get(row.id) ?? 0) >= deps.lastUsedIntervalMs) {
        lastWritten.set(row.id, now);
        await repository.touch(row.id);
      }
      return toAppKey(row);
    },

    /**
     * Who acts when the key is used: its maker's membership narrowed to the key's sources. Throws
     * `refused()` when the key is not of `workspaceId` or its maker may no longer do `permission`
     * there (left, demoted): a key is never more than its maker.
     */
    async principal(
      key: Pick<AppKey, 'id' | 'workspaceId' | 'createdBy'>,
      options: { permission: Permission; refused: () => Error; workspaceId?: string },
    ): Promise<Membership> {
      if (options.workspaceId !== undefined && options.workspaceId !== key.workspaceId) {
        throw options.refused();
      }
      let maker: Membership;
      try {
        maker = await deps.workspaces.access(key.workspaceId, key.createdBy, options.permission);
      } catch {
        throw options.refused();
      }
      const scope = await repository.resolvedScope(key.id, key.workspaceId);
      return { ...maker, scope: { keyId: key.id, ...scope } };
    },
  };
}

export type AppKeys = ReturnType<typeof createAppKeys>;
