/** SQL of features, sub-features and policies. */
import type { Pool } from 'pg';
import type { Db } from '@pelita/kit';

export interface Feature {
  id: number;
  name: string;
  label: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SubFeature {
  id: number;
  featureId: number;
  name: string;
  label: string;
  method: string;
  path: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A role's grant of a sub-feature, with the names around it. */
export interface Policy {
  id: number;
  roleId: number;
  roleName: string;
  featureId: number;
  featureName: string;
  subFeatureId: number;
  subFeatureName: string;
  method: string;
  path: string;
  status: boolean;
  createdAt: Date;
  updatedAt: Date;
}

// Columns named as the entities' fields (camelCase inside the service), so rows need no mapping.
const TIMES = 'created_at as "createdAt", updated_at as "updatedAt"';
const FEATURE = `id, name, label, ${TIMES}`;
const SUB_FEATURE = `id, feature_id as "featureId", name, label, method, path, ${TIMES}`;
const POLICY = `
  select p.id, p.role_id as "roleId", r.name as "roleName", f.id as "featureId",
         f.name as "featureName", s.id as "subFeatureId", s.name as "subFeatureName",
         s.method, s.path, p.status, p.created_at as "createdAt", p.updated_at as "updatedAt"
  from policies p
  join roles r on r.id = p.role_id
  join sub_features s on s.id = p.sub_feature_id
  join features f on f.id = s.feature_id`;

export function createAccessRepository(pool: Pool) {
  // Writes take the transaction of the change (`db`); reads the pool.
  const one = async <T extends object>(sql: string, values: unknown[], db: Db = pool) =>
    (await db.query<T>(sql, values)).rows[0];
  const removed = async (sql: string, id: number, db: Db) =>
    ((await db.query(sql, [id])).rowCount ?? 0) > 0;

  return {
    listFeatures: async () =>
      (await pool.query<Feature>(`select ${FEATURE} from features order by id`)).rows,
    findFeature: (id: number) =>
      one<Feature>(`select ${FEATURE} from features where id = $1`, [id]),
    insertFeature: async (name: string, label: string, db: Db = pool) =>
      (await one<Feature>(
        `insert into features (name, label) values ($1, $2) returning ${FEATURE}`,
        [name, label],
        db,
      ))!,
    updateFeature: (id: number, name: string, label: string, db: Db = pool) =>
      one<Feature>(
        `update features set name = $2, label = $3, updated_at = now() where id = $1 returning ${FEATURE}`,
        [id, name, label],
        db,
      ),
    removeFeature: (id: number, db: Db = pool) =>
      removed('delete from features where id = $1', id, db),

    listSubFeatures: async (featureId: number) =>
      (
        await pool.query<SubFeature>(
          `select ${SUB_FEATURE} from sub_features where feature_id = $1 order by id`,
          [featureId],
        )
      ).rows,
    findSubFeature: (id: number) =>
      one<SubFeature>(`select ${SUB_FEATURE} from sub_features where id = $1`, [id]),
    insertSubFeature: async (featureId: number, s: SubFeatureFields, db: Db = pool) =>
      (await one<SubFeature>(
        `insert into sub_features (feature_id, name, label, method, path)
         values ($1, $2, $3, $4, $5) returning ${SUB_FEATURE}`,
        [featureId, s.name, s.label, s.method, s.path],
        db,
      ))!,
    updateSubFeature: (id: number, s: SubFeatureFields, db: Db = pool) =>
      one<SubFeature>(
        `update sub_features set name = $2, label = $3, method = $4, path = $5, updated_at = now()
         where id = $1 returning ${SUB_FEATURE}`,
        [id, s.name, s.label, s.method, s.path],
        db,
      ),
    removeSubFeature: (id: number, db: Db = pool) =>
      removed('delete from sub_features where id = $1', id, db),

    listPolicies: async (roleId?: number) =>
      (
        await pool.query<Policy>(
          `${POLICY} where ($1::int is null or p.role_id = $1) order by r.level, r.name, s.id`,
          [roleId ?? null],
        )
      ).rows,
    findPolicy: (id: number) => one<Policy>(`${POLICY} where p.id = $1`, [id]),
    /** Grants the sub-feature to the role, or sets the status of the existing grant. */
    upsertPolicy: async (roleId: number, subFeatureId: number, status: boolean, db: Db = pool) =>
      (await one<{ id: number }>(
        `insert into policies (role_id, sub_feature_id, status) values ($1, $2, $3)
         on conflict (role_id, sub_feature_id)
         do update set status = excluded.status, updated_at = now()
         returning id`,
        [roleId, subFeatureId, status],
        db,
      ))!.id,
    setPolicyStatus: (id: number, status: boolean, db: Db = pool) =>
      one<{ id: number }>(
        'update policies set status = $2, updated_at = now() where id = $1 returning id',
        [id, status],
        db,
      ),
    removePolicy: (id: number, db: Db = pool) =>
      removed('delete from policies where id = $1', id, db),
    /** The highest rank (smallest level) of the roles granted any of these sub-features, if any. */
    topHolderLevel: async (subFeatureIds: number[]) =>
      (
        await pool.query<{ level: number | null }>(
          `select min(r.level) as level from policies p join roles r on r.id = p.role_id
           where p.sub_feature_id = any($1::int[])`,
          [subFeatureIds],
        )
      ).rows[0]?.level ?? undefined,
  };
}

export interface SubFeatureFields {
  name: string;
  label: string;
  method: string;
  path: string;
}

export type AccessRepository = ReturnType<typeof createAccessRepository>;
