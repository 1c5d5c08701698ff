/**
 * Workspace iframes: the embeddable chat widget's configuration — which sites may embed it
 * (allowed origins), the app key its chats are made with, and how it looks. The browser is
 * only ever given the iframe's id: the app key stays on the server (a key in a page would be
 * anyone's). `publicConfig` is what the widget loads, for an allowed origin only.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, HttpError } from '@pelita/kit';
import type pg from 'pg';
import { memberOf, type Actor, type MemberCheck } from '../workspaces/actor';
import { isUniqueViolation } from '../db/database';
import type { Paging } from '../paging';

export interface IframeTheme {
  title: string;
  greeting: string;
  primary_color: string;
  position: 'bottom-right' | 'bottom-left';
  dark_mode: boolean;
}

export interface Iframe {
  id: string;
  workspace_id: string;
  name: string;
  allowed_origins: string[];
  app_key_id: string;
  /** The app key's prefix, to recognise it in the list of keys. */
  app_key_prefix: string;
  /** False once its app key is revoked: the widget then refuses to load. */
  app_key_active: boolean;
  theme: IframeTheme;
  enabled: boolean;
  show_passages: boolean;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface Widget {
  id: string;
  workspaceId: string;
  workspaceName: string;
  appKeyId: string;
  /** The member who made the app key: the widget's chats use what they may use. */
  actingUserId: string;
  allowedOrigins: string[];
  theme: IframeTheme;
  /** Whether visitors see the passages' text (titles only otherwise). */
  showPassages: boolean;
}

export interface IframeInput {
  name: string;
  allowed_origins: string[];
  app_key_id: string;
  theme: IframeTheme;
  enabled: boolean;
  show_passages: boolean;
}

const SELECT = `select f.*, k.prefix as app_key_prefix, k.revoked_at is null as app_key_active
  from workspace_iframes f join app_keys k on k.id = f.app_key_id`;

const notFound = (id: string) =>
  new HttpError(404, 'iframe_not_found', `The iframe ${id} does not exist`);
const taken = (err: unknown) => {
  throw isUniqueViolation(err) ? conflict('The workspace has an iframe of that name') : err;
};

export function createIframes(pool: pg.Pool, workspaces: MemberCheck) {
  async function find(workspaceId: string, id: string): Promise<Iframe> {
    const { rows } = await pool.query<Iframe>(`${SELECT} where f.id = $1 and f.workspace_id = $2`, [
      id,
      workspaceId,
    ]);
    if (!rows[0]) throw notFound(id);
    return rows[0];
  }

  /** The key must be a live key of this workspace: never another workspace's. */
  async function requireOwnKey(workspaceId: string, appKeyId: string): Promise<void> {
    const { rows } = await pool.query(
      'select 1 from app_keys where id = $1 and workspace_id = $2 and revoked_at is null',
      [appKeyId, workspaceId],
    );
    if (rows.length === 0) {
      throw badRequest(`app_key_id ${appKeyId} is not an active app key of this workspace`);
    }
  }

  /**
   * A live widget — enabled, its app key not revoked — with what serving it needs: the
   * workspace, the key its chats are made with and the member the key acts as. Anything else
   * is the same 404, so nobody learns which ids exist.
   */
  async function widget(id: string): Promise<Widget> {
    const { rows } = await pool.query<
      Iframe & { workspace_name: string; app_key_created_by: string }
    >(
      `select f.*, w.name as workspace_name, k.created_by as app_key_created_by
       from workspace_iframes f
       join app_keys k on k.id = f.app_key_id and k.revoked_at is null
       join workspaces w on w.id = f.workspace_id
       where f.id = $1 and f.enabled`,
      [id],
    );
    const row = rows[0];
    if (!row) throw notFound(id);
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      workspaceName: row.workspace_name,
      appKeyId: row.app_key_id,
      actingUserId: row.app_key_created_by,
      allowedOrigins: row.allowed_origins,
      theme: row.theme,
      showPassages: row.show_passages,
    };
  }

  // Every member-facing function takes workspace.manage.
  const manager = (actor: Actor) => memberOf(workspaces, actor, 'workspace.manage');

  return {
    find: async (actor: Actor, id: string) => find((await manager(actor)).workspaceId, id),
    widget,
    async list(actor: Actor, paging: Paging) {
      const { workspaceId } = await manager(actor);
      const { rows: count } = await pool.query<{ n: number }>(
        'select count(*)::int as n from workspace_iframes where workspace_id = $1',
        [workspaceId],
      );
      const { rows } = await pool.query<Iframe>(
        `${SELECT} where f.workspace_id = $1 order by f.name limit $2 offset $3`,
        [workspaceId, paging.limit, (paging.page - 1) * paging.limit],
      );
      return { rows, total: count[0]?.n ?? 0 };
    },
    async create(actor: Actor, input: IframeInput) {
      const { workspaceId, userId } = await manager(actor);
      await requireOwnKey(workspaceId, input.app_key_id);
      const id = randomUUID();
      await pool
        .query(
          `insert into workspace_iframes (id, workspace_id, name, allowed_origins, app_key_id,
             theme, enabled, created_by, show_passages)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            id,
            workspaceId,
            input.name,
            input.allowed_origins,
            input.app_key_id,
            JSON.stringify(input.theme),
            input.enabled,
            userId,
            input.show_passages,
          ],
        )
        .catch(taken);
      return find(workspaceId, id);
    },
    async update(
      actor: Actor,
      id: string,
      changes: Partial<Omit<IframeInput, 'theme'>> & { theme?: Partial<IframeTheme> },
    ) {
      const { workspaceId } = await manager(actor);
      const before = await find(workspaceId, id);
      if (changes.app_key_id !== undefined) await requireOwnKey(workspaceId, changes.app_key_id);
      await pool
        .query(
          `update workspace_iframes set name = $3, allowed_origins = $4, app_key_id = $5,
             theme = $6, enabled = $7, show_passages = $8, updated_at = now()
           where id = $1 and workspace_id = $2`,
          [
            id,
            workspaceId,
            changes.name ?? before.name,
            changes.allowed_origins ?? before.allowed_origins,
            changes.app_key_id ?? before.app_key_id,
            JSON.stringify({ ...before.theme, ...changes.theme }),
            changes.enabled ?? before.enabled,
            changes.show_passages ?? before.show_passages,
          ],
        )
        .catch(taken);
      return find(workspaceId, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const { workspaceId } = await manager(actor);
      const { rowCount } = await pool.query(
        'delete from workspace_iframes where id = $1 and workspace_id = $2',
        [id, workspaceId],
      );
      if (!rowCount) throw notFound(id);
    },
    /** What a page on an allowed origin loads about the widget: its look. */
    async publicConfig(id: string, origin: string | undefined) {
      const live = await widget(id);
      if (!origin || !live.allowedOrigins.includes(origin)) throw notFound(id);
      return { id: live.id, workspace_name: live.workspaceName, theme: live.theme };
    },
  };
}

export type Iframes = ReturnType<typeof createIframes>;
