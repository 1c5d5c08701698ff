/**
 * The home page's figures (seed 001 D): counts of active clients, licenses, mappings and accounts,
 * the 5 most recently activated licenses, and the 5 clients with most licenses.
 */
import type { Queryable } from '../store/sql';

export interface HomeFigures {
  counts: { active_clients: number; licenses: number; mappings: number; admins: number };
  recent: Array<{
    id: string;
    license_name: string;
    client_name: string;
    client_id: string;
    activated_date: Date;
  }>;
  top: Array<{ name: string; n: number }>;
}

export async function homeFigures(db: Queryable): Promise<HomeFigures> {
  const counts = await db.query<HomeFigures['counts']>(
    `select (select count(*)::int from clients where is_active) as active_clients,
            (select count(*)::int from licenses) as licenses,
            (select count(*)::int from secret_mappings) as mappings,
            (select count(*)::int from admin_users) as admins`,
  );
  const recent = await db.query<HomeFigures['recent'][number]>(
    `select l.id, l.license_name, l.activated_date, c.name as client_name, c.id as client_id
     from licenses l join clients c on c.id = l.client_id
     where l.activated_date is not null
     order by l.activated_date desc, l.created_at desc limit 5`,
  );
  const top = await db.query<HomeFigures['top'][number]>(
    `select c.name, count(l.id)::int as n from clients c join licenses l on l.client_id = c.id
     group by c.id, c.name order by n desc, c.name limit 5`,
  );
  return { counts: counts.rows[0]!, recent: recent.rows, top: top.rows };
}
