/**
 * Access lists of knowledge resources. Every listing and every retrieval asks `visible` (or uses
 * `visibleSql` in its query), every read of one resource asks `requireVisible`: a resource the
 * caller may not use is answered as not existing (404), so its id reveals nothing. What a member
 * sees is decided here; the SQL is the access repository's.
 */
import { badRequest, HttpError } from '@pelita/kit';
import type pg from 'pg';
import type { Paging } from '../paging';
import type { Membership } from '../workspaces/workspaces';
import type {
  AccessRepository,
  Listing,
  Queryable,
  ResourceType,
  Visibility,
} from './access-repository';
import { visibleSql } from './access-repository';

export type { Listing, ResourceType } from './access-repository';

/** The ids of one type the caller may use, or `all` for members with `knowledge.all`. */
export type Visible = 'all' | string[];

/** What a key's scope lets through of a type: nothing but its documents and audios. */
const scoped = (member: Membership, type: ResourceType): string[] | undefined =>
  member.scope && (type === 'document' || type === 'audio' ? member.scope[type] : []);

const seesAll = (member: Membership) => member.permissions.includes('knowledge.all');

/** What the member may see of the type, as the repository filters it. */
function visibilityOf(member: Membership, type: ResourceType): Visibility {
  const scope = scoped(member, type);
  return {
    workspaceId: member.workspaceId,
    userId: member.userId,
    type,
    all: seesAll(member),
    ...(scope ? { scope } : {}),
  };
}

export function createAccessLists(repository: AccessRepository) {
  /** Whether the resource is in the member's workspace and the member may use it. */
  async function usable(member: Membership, type: ResourceType, id: string): Promise<boolean> {
    if (scoped(member, type)?.includes(id) === false) return false;
    return repository.isVisible(visibilityOf(member, type), id);
  }

  /** 404 `<type>_not_found` unless the resource is in the workspace and the member may use it. */
  async function requireVisible(member: Membership, type: ResourceType, id: string) {
    if (!(await usable(member, type, id))) {
      throw new HttpError(404, `${type}_not_found`, `The ${type} ${id} does not exist`);
    }
  }

  return {
    /** Puts the creator on the new resource's list (in the creating transaction when given). */
    grantCreator: (member: Membership, type: ResourceType, id: string, db?: Queryable) =>
      repository.grant(visibilityOf(member, type), id, db),

    async visible(member: Membership, type: ResourceType): Promise<Visible> {
      const scope = scoped(member, type);
      if (scope?.length === 0) return [];
      const listed: Visible = seesAll(member)
        ? 'all'
        : await repository.listedIds(visibilityOf(member, type));
      if (!scope) return listed;
      return listed === 'all' ? scope : listed.filter((id) => scope.includes(id));
    },

    /**
     * A SQL condition for listings: `alias.id` is visible to the member. Appends its values to
     * `values` and refers to them by position.
     */
    visibleSql: (member: Membership, type: ResourceType, alias: string, values: unknown[]) =>
      visibleSql(visibilityOf(member, type), alias, values),

    canUse: usable,

    /**
     * One page of the workspace's resources of `type` the member may use, and how many there
     * are: the one way every list reads them, so no listing can leave the access list out.
     */
    page: <Row extends pg.QueryResultRow>(
      member: Membership,
      type: ResourceType,
      listing: Listing,
      paging: Paging,
    ): Promise<{ rows: Row[]; total: number }> =>
      repository.page<Row>(visibilityOf(member, type), listing, paging),

    /** Creates a resource (`insert`) and puts its creator on its list, in one transaction. */
    createGranted: (
      member: Membership,
      type: ResourceType,
      id: string,
      insert: (client: pg.PoolClient) => Promise<unknown>,
    ): Promise<void> => repository.insertGranted(visibilityOf(member, type), id, insert),

    requireVisible,

    /** Who is on the list. */
    users: (type: ResourceType, id: string) => repository.users(type, id),

    /**
     * Replaces the list. Only members of the workspace can be on it (400 otherwise). Changing it
     * takes `knowledge.write` and being on it, or `knowledge.all`.
     */
    async replace(
      member: Membership,
      type: ResourceType,
      id: string,
      userIds: string[],
    ): Promise<string[]> {
      if (!member.permissions.includes('knowledge.write') && !seesAll(member)) {
        throw new HttpError(
          403,
          'forbidden',
          'Changing who may use knowledge needs knowledge.write',
        );
      }
      await requireVisible(member, type, id);
      const wanted = [...new Set(userIds)];
      const members = await repository.membersAmong(member.workspaceId, wanted);
      const strangers = wanted.filter((user) => !members.has(user));
      if (strangers.length > 0) {
        throw badRequest(`Not members of the workspace: ${strangers.join(', ')}`);
      }
      await repository.replace(member.workspaceId, type, id, wanted);
      return repository.users(type, id);
    },

    /** Drops the list of a deleted resource. */
    forget: (type: ResourceType, id: string, db?: Queryable) => repository.forget(type, id, db),
  };
}

export type AccessLists = ReturnType<typeof createAccessLists>;
