/**
 * The list, new, edit and delete pages of one managed record type (clients, licenses, mappings,
 * accounts, roles), from a description of it. Records that belong to a client are listed and
 * created under `/clients/:clientId/...`; each is edited at `/<plural>/:id/edit`.
 */
import { HttpError, type RouteDefinition } from '@pelita/kit';
import type { Permission } from '../admins/permissions';
import type { z } from 'zod';
import { parseForm, type FieldErrors, type FormResult } from '../records/form-input';
import type { ManagedRecords } from '../records/managed-records';
import type { Row } from '../store/table-repository';
import { deleteForm, formView, type FieldSpec, type FormValues } from './form-view';
import { html, type Html } from './html';
import { layout } from './layout';
import { listQuery, listView, type Column } from './list-view';
import { pageRoute, type PageContext, type PageEnvironment } from './page-route';

export interface ResourceSpec {
  /** Singular, for titles and messages: `client`, `license`. */
  noun: string;
  /** URL segment: `clients`, `licenses`. */
  plural: string;
  records: ManagedRecords;
  read: Permission;
  write: Permission;
  /** Belongs to a client: listed and created under /clients/:clientId/<plural>. */
  underClient?: boolean;
  columns: Column[];
  /** The form's fields, as the new and the edit form show them. */
  fields: (creating: boolean) => FieldSpec[] | Promise<FieldSpec[]>;
  /** The schema the new and the edit form are parsed with. */
  form: (creating: boolean) => z.ZodType<Record<string, unknown>>;
  /** Parsed form values → columns (hash a password, keep an unchanged secret). */
  toRecord?: (
    values: Record<string, unknown>,
    creating: boolean,
  ) => Promise<Record<string, unknown>>;
  /** A record as its edit form shows it (without secrets). */
  shown?: (row: Row) => FormValues;
  /** Row actions in the list beyond edit. */
  rowActions?: (row: Row) => Html;
  /** After a change (end sessions of a changed account, ...). */
  afterChange?: (ctx: PageContext, before: Row | null, after: Row | null) => Promise<void>;
  /** Checks needing the request (an account may not deactivate itself): field → message. */
  check?: (
    ctx: PageContext,
    values: Record<string, unknown>,
    row: Row | null,
  ) => Promise<FieldErrors | null>;
  /** The field a unique-constraint violation is shown on (an e-mail or name already taken). */
  uniqueField?: string;
  /** Refuses a deletion with a message (deleting oneself, a role in use). */
  refuseDelete?: (ctx: PageContext, row: Row) => Promise<string | null>;
}

export function resourcePages(
  env: PageEnvironment & { clients: ManagedRecords },
  spec: ResourceSpec,
): RouteDefinition[] {
  const { clients } = env;
  const title = spec.noun[0]!.toUpperCase() + spec.noun.slice(1);
  const listBase = (clientId?: string) =>
    spec.underClient ? `/clients/${clientId}/${spec.plural}` : `/${spec.plural}`;
  const parentId = (row: Row) =>
    spec.records.definition.parentColumn
      ? String(row[spec.records.definition.parentColumn])
      : undefined;

  async function clientOf(ctx: PageContext): Promise<Row | null> {
    if (!spec.underClient) return null;
    const client = await clients.get(ctx.params.clientId ?? '');
    if (!client) throw new HttpError(404, 'not_found', 'No such client');
    return client;
  }

  async function rowOf(ctx: PageContext): Promise<Row> {
    const row = await spec.records.get(ctx.params.id ?? '');
    if (!row) throw new HttpError(404, 'not_found', `No such ${spec.noun}`);
    return row;
  }

  const heading = (client: Row | null, text: string) =>
    client ? `${text} — ${String(client.name)}` : text;
  const canWrite = (ctx: PageContext) => ctx.viewer!.permissions.includes(spec.write);

  async function formPage(
    ctx: PageContext,
    options: {
      creating: boolean;
      row?: Row;
      client: Row | null;
      values: FormValues;
      errors: FieldErrors;
      status?: number;
    },
  ) {
    const action = options.creating
      ? listBase(options.client?.id)
      : `/${spec.plural}/${options.row!.id}`;
    const back = options.creating
      ? listBase(options.client?.id)
      : listBase(options.row ? parentId(options.row) : undefined);
    const body = html`<p><a href="${back}">Back to the list</a></p>
      ${formView({ action, csrf: ctx.viewer!.csrfToken, fields: await spec.fields(options.creating), values: options.values, errors: options.errors, submit: options.creating ? `Create ${spec.noun}` : 'Save changes' })}
      ${options.row ? deleteForm(`/${spec.plural}/${options.row.id}/delete`, ctx.viewer!.csrfToken, `Delete this ${spec.noun}`) : ''}`;
    return {
      status: options.status ?? 200,
      html: layout({
        title: heading(options.client, options.creating ? `New ${spec.noun}` : `Edit ${spec.noun}`),
        viewer: ctx.viewer,
        body,
        current: `/${spec.plural}`,
      }),
    };
  }

  async function checked(
    ctx: PageContext,
    parsed: FormResult<Record<string, unknown>>,
    row: Row | null,
  ): Promise<FormResult<Record<string, unknown>>> {
    if (!parsed.ok || !spec.check) return parsed;
    const errors = await spec.check(ctx, parsed.values, row);
    return errors ? { ok: false, errors } : parsed;
  }

  /** The write's result, or undefined when it broke a unique constraint the form can name. */
  async function taken<T>(write: () => Promise<T>): Promise<T | undefined> {
    try {
      return await write();
    } catch (err) {
      if (spec.uniqueField && (err as { code?: string }).code === '23505') return undefined;
      throw err;
    }
  }

  const listPath = spec.underClient ? `/clients/:clientId/${spec.plural}` : `/${spec.plural}`;
  return [
    pageRoute(env, {
      method: 'get',
      path: listPath,
      summary: `List of ${spec.plural}: search, sort, pages`,
      access: spec.read,
      handler: async (ctx) => {
        const client = await clientOf(ctx);
        const query = listQuery(ctx.query);
        const result = await spec.records.list({ ...query, parentId: client?.id });
        const base = listBase(client?.id);
        const flash = ctx.query.done ? `${title} ${ctx.query.done}.` : undefined;
        const body = html`${client ? html`<p><a href="/clients/${client.id}">Back to ${String(client.name)}</a></p>` : ''}
        ${canWrite(ctx) ? html`<p><a class="button" href="${base}/new">New ${spec.noun}</a></p>` : ''}
        ${listView({
          base,
          caption: heading(client, title + 's'),
          columns: spec.columns,
          result,
          q: query.q,
          actions: (row) =>
            html`${canWrite(ctx) ? html`<a href="/${spec.plural}/${row.id}/edit">Edit<span class="visually-hidden"> ${String((row[spec.columns[0]!.key] as string) ?? '')}</span></a>` : ''}${spec.rowActions ? spec.rowActions(row) : ''}`,
        })}`;
        return {
          html: layout({
            title: heading(client, title + 's'),
            viewer: ctx.viewer,
            body,
            flash,
            current: `/${spec.plural}`,
          }),
        };
      },
    }),
    pageRoute(env, {
      method: 'get',
      path: `${listPath}/new`,
      summary: `Form of a new ${spec.noun}`,
      access: spec.write,
      handler: async (ctx) =>
        formPage(ctx, {
          creating: true,
          client: await clientOf(ctx),
          values: { is_active: true, status: true, qty: 1, path: '/' },
          errors: {},
        }),
    }),
    pageRoute(env, {
      method: 'post',
      path: listPath,
      summary: `Creates a ${spec.noun}`,
      access: spec.write,
      handler: async (ctx) => {
        const client = await clientOf(ctx);
        const parsed = await checked(ctx, parseForm(spec.form(true), ctx.form), null);
        if (!parsed.ok)
          return formPage(ctx, {
            creating: true,
            client,
            values: ctx.form,
            errors: parsed.errors,
            status: 400,
          });
        const values = spec.toRecord ? await spec.toRecord(parsed.values, true) : parsed.values;
        if (client && spec.records.definition.parentColumn)
          values[spec.records.definition.parentColumn] = client.id;
        const row = await taken(() => spec.records.create(ctx.actor, values));
        if (!row)
          return formPage(ctx, {
            creating: true,
            client,
            values: ctx.form,
            errors: { [spec.uniqueField!]: 'Already taken' },
            status: 409,
          });
        await spec.afterChange?.(ctx, null, row);
        return { redirect: `${listBase(client?.id)}?done=created` };
      },
    }),
    pageRoute(env, {
      method: 'get',
      path: `/${spec.plural}/:id/edit`,
      summary: `Form of an existing ${spec.noun}`,
      access: spec.write,
      handler: async (ctx) => {
        const row = await rowOf(ctx);
        const client = spec.underClient ? await clients.get(parentId(row)!) : null;
        return formPage(ctx, {
          creating: false,
          row,
          client,
          values: spec.shown ? spec.shown(row) : row,
          errors: {},
        });
      },
    }),
    pageRoute(env, {
      method: 'post',
      path: `/${spec.plural}/:id`,
      summary: `Saves an existing ${spec.noun}`,
      access: spec.write,
      handler: async (ctx) => {
        const row = await rowOf(ctx);
        const client = spec.underClient ? await clients.get(parentId(row)!) : null;
        const parsed = await checked(ctx, parseForm(spec.form(false), ctx.form), row);
        if (!parsed.ok)
          return formPage(ctx, {
            creating: false,
            row,
            client,
            values: ctx.form,
            errors: parsed.errors,
            status: 400,
          });
        const values = spec.toRecord ? await spec.toRecord(parsed.values, false) : parsed.values;
        const after = await taken(() => spec.records.update(ctx.actor, row.id, values));
        if (after === undefined)
          return formPage(ctx, {
            creating: false,
            row,
            client,
            values: ctx.form,
            errors: { [spec.uniqueField!]: 'Already taken' },
            status: 409,
          });
        await spec.afterChange?.(ctx, row, after);
        return { redirect: `${listBase(parentId(row))}?done=saved` };
      },
    }),
    pageRoute(env, {
      method: 'post',
      path: `/${spec.plural}/:id/delete`,
      summary: `Deletes a ${spec.noun}`,
      access: spec.write,
      handler: async (ctx) => {
        const row = await rowOf(ctx);
        const refusal = await spec.refuseDelete?.(ctx, row);
        if (refusal) throw new HttpError(409, 'conflict', refusal);
        await spec.records.remove(ctx.actor, row.id);
        await spec.afterChange?.(ctx, row, null);
        return { redirect: `${listBase(parentId(row))}?done=deleted` };
      },
    }),
  ];
}
