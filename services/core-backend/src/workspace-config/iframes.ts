/**
 * Workspace iframes: the embeddable chat widget's configuration — which sites may embed it
 * (allowed origins), the app key its chats are made with, and how it looks. The browser is
 * only ever given the iframe's id: the app key stays on the server (a key in a page would be
 * anyone's). `publicConfig` is what the widget loads, for an allowed origin only.
 */
import { randomUUID } from 'node:crypto';
import { badRequest } from '@pelita/kit';
import { changed } from '../db/row-writes';
import type { Actor, MemberCheck } from '../workspaces/actor';
import {
  IFRAME_COLUMNS,
  type IframeInput,
  type IframeRepository,
  type IframeTheme,
} from './iframe-repository';
import { managedRows } from './managed-rows';

export type { IframeInput, IframeTheme } from './iframe-repository';

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

export function createIframes(repository: IframeRepository, workspaces: MemberCheck) {
  const rows = managedRows(workspaces, repository, 'iframe');
  const { find, manager, notFound, taken } = rows;

  /** The key must be a live key of this workspace: never another workspace's. */
  async function requireOwnKey(workspaceId: string, appKeyId: string): Promise<void> {
    if (!(await repository.liveKey(workspaceId, appKeyId))) {
      throw badRequest(`app_key_id ${appKeyId} is not an active app key of this workspace`);
    }
  }

  /**
   * A live widget — enabled, its app key not revoked — with what serving it needs: the
   * workspace, the key its chats are made with and the member the key acts as. Anything else
   * is the same 404, so nobody learns which ids exist.
   */
  async function widget(id: string): Promise<Widget> {
    const row = await repository.live(id);
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
  return {
    find: rows.show,
    widget,
    list: rows.list,
    async create(actor: Actor, input: IframeInput) {
      const { workspaceId, userId } = await manager(actor);
      await requireOwnKey(workspaceId, input.app_key_id);
      const id = randomUUID();
      await repository.insert(id, workspaceId, userId, input).catch(taken);
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
      const theme = { ...before.theme, ...changes.theme };
      const columns = changed(IFRAME_COLUMNS, before, { ...changes, theme });
      await repository.update(id, workspaceId, columns).catch(taken);
      return find(workspaceId, id);
    },
    remove: rows.remove,
    /** What a page on an allowed origin loads about the widget: its look. */
    async publicConfig(id: string, origin: string | undefined) {
      const live = await widget(id);
      if (!origin || !live.allowedOrigins.includes(origin)) throw notFound(id);
      return { id: live.id, workspace_name: live.workspaceName, theme: live.theme };
    },
  };
}

export type Iframes = ReturnType<typeof createIframes>;
