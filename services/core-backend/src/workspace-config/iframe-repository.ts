/** The `workspace_iframes` table (chat widgets), read with its app key's prefix and liveness. */
import type pg from 'pg';
import { rowWrites } from '../db/row-writes';
import { isLiveAppKey, workspaceRows } from './workspace-rows-repository';

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

/** What is stored of an iframe (the theme as JSON). */
export const IFRAME_COLUMNS = [
  'name',
  'allowed_origins',
  'app_key_id',
  'theme',
  'enabled',
  'show_passages',
] as const;
export type IframeInput = Pick<Iframe, (typeof IFRAME_COLUMNS)[number]>;

export function createIframeRepository(pool: pg.Pool) {
  const writes = rowWrites<IframeInput>('workspace_iframes', IFRAME_COLUMNS);
  return {
    ...workspaceRows<Iframe>(pool, {
      table: 'workspace_iframes',
      columns: 't.*, k.prefix as app_key_prefix, k.revoked_at is null as app_key_active',
      from: 'workspace_iframes t join app_keys k on k.id = t.app_key_id',
      orderBy: 't.name',
    }),
    /** Whether the key is a live key of this workspace. */
    liveKey: (workspaceId: string, appKeyId: string) => isLiveAppKey(pool, workspaceId, appKeyId),
    /** An enabled iframe whose app key is live, with its workspace's name and the key's maker. */
    async live(id: string) {
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
      return rows[0];
    },
    insert: (id: string, workspaceId: string, userId: string, input: IframeInput) =>
      writes.insert(pool, id, { workspaceId, userId }, input),
    update: (id: string, workspaceId: string, input: IframeInput) =>
      writes.update(pool, id, workspaceId, input),
  };
}

export type IframeRepository = ReturnType<typeof createIframeRepository>;
