/**
 * resourceRoutes over a small in-memory collection, served by the kit on loopback: the five
 * routes answer with their statuses and shapes, pass the caller and parsed input to the domain,
 * validate what comes in, and document what they answer.
 */
import { z } from 'zod';
import {
  conflict,
  createLogger,
  createService,
  collectionRoute,
  HttpError,
  itemRoute,
  resourceRoutes,
  serve,
  type RunningServer,
} from '../../src';

interface Note {
  id: number;
  shelf: string;
  text: string;
  owner: string;
}

const ShelfParams = z.object({ shelf: z.string().min(1) });
const NoteParams = ShelfParams.extend({ noteId: z.coerce.number().int() });
const NoteBody = z.object({ text: z.string().min(1) });
const NoteResponse = z.object({ id: z.number(), text: z.string(), owner: z.string() });
const Paging = z.object({ page: z.coerce.number().int().min(1).default(1) });

let server: RunningServer;
let notes: Note[];
/** Every call the domain received: the caller, and what it was asked. */
let calls: unknown[][];
/** The domain's answer as a promise, a throw as a rejection (as a real store's would be). */
const after = <T>(answer: () => T): Promise<T> => new Promise((done) => done(answer()));

beforeAll(async () => {
  const logger = createLogger({ name: 'resource-routes', level: 'silent' });
  const find = (shelf: string, id: number) => {
    const note = notes.find((n) => n.shelf === shelf && n.id === id);
    if (!note) throw new HttpError(404, 'note_not_found', `No note ${id}`);
    return note;
  };
  const routes = resourceRoutes(
    {
      tags: ['notes'],
      path: '/shelves/:shelf/notes',
      item: '/:noteId',
      params: { collection: ShelfParams, item: NoteParams },
      // The caller is whoever the header names; the shelf comes with it, as a workspace would.
      caller: (req, params) =>
        after(() => ({ user: req.header('x-user') ?? 'nobody', shelf: params.shelf })),
      one: {
        description: 'The note',
        schema: NoteResponse,
        from: (note: Note) => ({ id: note.id, text: note.text, owner: note.owner }),
      },
      missing: 'No such note',
    },
    {
      list: {
        summary: 'Notes on a shelf',
        page: { description: 'A page of notes', schema: z.unknown() },
        query: Paging,
        run: (caller, query) =>
          after(() => {
            calls.push(['list', caller, query]);
            const rows = notes.filter((n) => n.shelf === caller.shelf);
            return { rows, total: rows.length };
          }),
      },
      create: {
        summary: 'Write a note',
        body: NoteBody,
        run: (caller, body) =>
          after(() => {
            calls.push(['create', caller, body]);
            if (notes.some((n) => n.text === body.text)) throw conflict('Taken');
            const note = { id: notes.length + 1, shelf: caller.shelf, owner: caller.user, ...body };
            notes.push(note);
            return note;
          }),
        answers: { 409: 'A note with that text exists' },
      },
      show: {
        summary: 'One note',
        run: (caller, params) => after(() => find(caller.shelf, params.noteId)),
      },
      change: {
        summary: 'Rewrite a note',
        body: NoteBody.partial(),
        run: (caller, params, body) =>
          after(() => {
            calls.push(['change', caller, params, body]);
            return Object.assign(find(caller.shelf, params.noteId), body);
          }),
      },
      remove: {
        summary: 'Throw a note away',
        run: (caller, params) =>
          after(() => {
            find(caller.shelf, params.noteId);
            notes = notes.filter((n) => n.id !== params.noteId);
          }),
      },
    },
  );
  const app = createService({ name: 'notes', logger, routes });
  server = await serve(app, {
    port: 0,
    host: '127.0.0.1',
    logger,
    shutdownTimeoutMs: 1000,
    handleSignals: false,
  });
});
afterAll(() => server.stop());
beforeEach(() => {
  notes = [{ id: 1, shelf: 'a', text: 'first', owner: 'ann' }];
  calls = [];
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-user': 'bob', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('resourceRoutes', () => {
  it('lists a page with its total and the query, from the rows the domain gives', async () => {
    expect(await call('GET', '/shelves/a/notes?page=2')).toEqual({
      status: 200,
      body: { data: [{ id: 1, text: 'first', owner: 'ann' }], total: 1, page: 2 },
    });
    expect(calls).toEqual([['list', { user: 'bob', shelf: 'a' }, { page: 2 }]]);
  });

  it('creates with 201 and the new item, passing the caller and the parsed body', async () => {
    const created = await call('POST', '/shelves/b/notes', { text: 'second' });
    expect(created).toEqual({ status: 201, body: { id: 2, text: 'second', owner: 'bob' } });
    expect(calls).toEqual([['create', { user: 'bob', shelf: 'b' }, { text: 'second' }]]);
    expect((await call('POST', '/shelves/b/notes', { text: 'second' })).status).toBe(409);
  });

  it('refuses a body that does not validate before the domain is asked', async () => {
    const refused = await call('POST', '/shelves/a/notes', { text: '' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBeDefined();
    expect(calls).toEqual([]);
  });

  it('shows, changes and removes one item by its parsed path parameters', async () => {
    expect(await call('GET', '/shelves/a/notes/1')).toEqual({
      status: 200,
      body: { id: 1, text: 'first', owner: 'ann' },
    });
    const changed = await call('PATCH', '/shelves/a/notes/1', { text: 'edited' });
    expect(changed.body).toEqual({ id: 1, text: 'edited', owner: 'ann' });
    expect(calls).toEqual([
      ['change', { user: 'bob', shelf: 'a' }, { shelf: 'a', noteId: 1 }, { text: 'edited' }],
    ]);
    expect(await call('DELETE', '/shelves/a/notes/1')).toEqual({
      status: 200,
      body: { deleted: true },
    });
    expect((await call('GET', '/shelves/a/notes/1')).status).toBe(404);
    expect((await call('GET', '/shelves/b/notes/1')).status).toBe(404);
  });

  it('documents every operation with its answers', async () => {
    const doc = (await call('GET', '/api-docs.json')).body;
    const collection = doc.paths['/shelves/{shelf}/notes'];
    const item = doc.paths['/shelves/{shelf}/notes/{noteId}'];
    expect(Object.keys(collection)).toEqual(['get', 'post']);
    expect(Object.keys(item)).toEqual(['get', 'patch', 'delete']);
    expect(Object.keys(collection.post.responses)).toEqual(
      expect.arrayContaining(['201', '404', '409']),
    );
    expect(collection.post.responses['409'].description).toBe('A note with that text exists');
    expect(item.delete.responses['200'].description).toBe('Deleted');
    expect(item.get.responses['404'].description).toBe('No such note');
  });
});

describe('resourceRoutes over a module', () => {
  let moduleServer: RunningServer;
  /** What the module was asked: its function, the caller, and the id or input. */
  let asked: unknown[][];
  const Shelf = z.object({ shelf: z.string(), id: z.string() });
  const Item = z.object({ id: z.string(), name: z.string() });
  const row = (id: string, name = 'n') => ({ id, name });

  beforeAll(async () => {
    const logger = createLogger({ name: 'module-routes', level: 'silent' });
    const module = {
      list: (caller: string, query: { page: number }) =>
        after(() => (asked.push(['list', caller, query]), { rows: [row('1')], total: 1 })),
      create: (caller: string, body: { name: string }) =>
        after(() => (asked.push(['create', caller, body]), row('2', body.name))),
      find: (caller: string, id: string) =>
        after(() => (asked.push(['find', caller, id]), row(id))),
      update: (caller: string, id: string, body: { name?: string }) =>
        after(() => (asked.push(['update', caller, id, body]), row(id, body.name))),
      remove: (caller: string, id: string) => after(() => asked.push(['remove', caller, id])),
    };
    // No item path given: it is the one parameter of the item's parameters.
    const resource = {
      tags: ['items'],
      path: '/items',
      params: { item: Shelf.pick({ id: true }) },
      caller: (req: { header(name: string): string | undefined }) =>
        after(() => req.header('x-user') ?? 'nobody'),
      one: {
        description: 'The item',
        schema: Item,
        from: (r: { id: string; name: string }) => r,
      },
      missing: 'No such item',
    };
    const routes = resourceRoutes(
      resource,
      {
        list: {
          summary: 'Items',
          page: { description: 'Items', schema: z.unknown() },
          query: Paging,
        },
        create: { summary: 'Add', body: z.object({ name: z.string() }) },
        show: { summary: 'One' },
        // An operation may still call the module its own way.
        change: {
          summary: 'Rename',
          body: z.object({ name: z.string() }),
          run: (caller, { id }, body) => module.update(caller, id, { name: `${body.name}!` }),
        },
        remove: { summary: 'Remove' },
      },
      module,
    );
    const copy = itemRoute(resource, {
      method: 'post',
      path: '/copy',
      summary: 'Copy an item',
      body: z.object({ times: z.number() }),
      answer: { description: 'The copy', schema: Item },
      answers: { 409: 'Busy' },
      run: (caller, { id }, { body }) =>
        after(() => (asked.push(['copy', caller, id, body]), row(id))),
    });
    // A creation answered its own way, on the collection.
    const imported = collectionRoute(resource, {
      method: 'post',
      path: '/import',
      status: 201,
      summary: 'Import an item',
      body: z.object({ from: z.string() }),
      answer: { description: 'The imported item', schema: Item },
      run: (caller, _params, { body }) =>
        after(() => (asked.push(['import', caller, body.from]), row('9', body.from))),
    });
    // A route below an item whose path adds a parameter of its own.
    const tagged = itemRoute(resource, {
      method: 'delete',
      path: '/tags/:tag',
      params: z.object({ id: z.string(), tag: z.string().min(2) }),
      summary: 'Untag an item',
      answer: { description: 'Untagged', schema: Item },
      run: (caller, { id, tag }) => after(() => (asked.push(['untag', caller, id, tag]), row(id))),
    });
    const app = createService({
      name: 'items',
      logger,
      routes: [...routes, copy, imported, tagged],
    });
    moduleServer = await serve(app, {
      port: 0,
      host: '127.0.0.1',
      logger,
      shutdownTimeoutMs: 1000,
      handleSignals: false,
    });
  });
  afterAll(() => moduleServer.stop());
  beforeEach(() => {
    asked = [];
  });

  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${moduleServer.url}${path}`, {
      method,
      headers: { 'x-user': 'bob', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };

  it("calls the module's list, create, find, update and remove with the item's id", async () => {
    expect(await send('GET', '/items?page=3')).toEqual({
      status: 200,
      body: { data: [row('1')], total: 1, page: 3 },
    });
    expect(await send('POST', '/items', { name: 'x' })).toEqual({
      status: 201,
      body: row('2', 'x'),
    });
    expect(await send('GET', '/items/7')).toEqual({ status: 200, body: row('7') });
    expect(await send('PATCH', '/items/7', { name: 'y' })).toEqual({
      status: 200,
      body: row('7', 'y!'),
    });
    expect(await send('DELETE', '/items/7')).toEqual({ status: 200, body: { deleted: true } });
    expect(asked).toEqual([
      ['list', 'bob', { page: 3 }],
      ['create', 'bob', { name: 'x' }],
      ['find', 'bob', '7'],
      ['update', 'bob', '7', { name: 'y!' }],
      ['remove', 'bob', '7'],
    ]);
  });

  it("adds a route below an item with the item's caller, parameters and 404", async () => {
    expect(await send('POST', '/items/7/copy', { times: 2 })).toEqual({
      status: 200,
      body: row('7'),
    });
    expect(asked).toEqual([['copy', 'bob', '7', { times: 2 }]]);
    expect((await send('POST', '/items/7/copy', { times: 'x' })).status).toBe(400);
    const doc = (await send('GET', '/api-docs.json')).body as {
      paths: Record<string, { post: { responses: Record<string, { description: string }> } }>;
    };
    const responses = doc.paths['/items/{id}/copy']!.post.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    expect(responses['404']!.description).toBe('No such item');
  });

  it('adds a route on the collection with its own status, and one below an item with its own parameter', async () => {
    expect(await send('POST', '/items/import', { from: 'x' })).toEqual({
      status: 201,
      body: row('9', 'x'),
    });
    expect(await send('DELETE', '/items/7/tags/red')).toEqual({ status: 200, body: row('7') });
    expect((await send('DELETE', '/items/7/tags/r')).status).toBe(400);
    expect(asked).toEqual([
      ['import', 'bob', 'x'],
      ['untag', 'bob', '7', 'red'],
    ]);
    const doc = (await send('GET', '/api-docs.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    // A top-level collection cannot be missing; an item can.
    expect(Object.keys(doc.paths['/items/import']!.post!.responses)).not.toContain('404');
    expect(Object.keys(doc.paths['/items/{id}/tags/{tag}']!.delete!.responses)).toContain('404');
  });

  const items = {
    tags: [],
    path: '/items',
    caller: () => after(() => 'x'),
    one: { description: '', schema: Item, from: (r: unknown) => r },
    missing: '',
  };

  it('refuses an item path that does not name one parameter', () => {
    expect(() =>
      resourceRoutes(
        { ...items, item: '/:a/:b', params: { item: z.object({}) } },
        { show: { summary: 'One' } },
        {},
      ),
    ).toThrow(/one parameter/);
  });

  it('refuses item parameters that do not add exactly one to the collection', () => {
    const params = { collection: Shelf, item: Shelf.extend({ a: z.string(), b: z.string() }) };
    expect(() =>
      itemRoute(
        { ...items, params },
        { method: 'get', summary: 'One', answer: { description: '' }, run: () => after(() => 1) },
      ),
    ).toThrow(/adds 2 parameters/);
  });

  it('refuses an operation without run when the module lacks its function', () => {
    expect(() =>
      resourceRoutes(
        { ...items, params: { item: Shelf.pick({ id: true }) } },
        { remove: { summary: 'Remove' } },
        {},
      ),
    ).toThrow(/module has no remove/);
  });
});
