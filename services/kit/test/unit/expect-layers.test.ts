import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

const LAYERS = [['config', 'mail'], ['db'], ['users'], ['routes'], ['main']];

// A small clean service: main → routes → users → db, config; written fresh for each test.
const CLEAN: Record<string, string> = {
  'config.ts': 'export const port = 3000;\n',
  'db/pool.ts':
    "// Not an import: import { route } from '../routes/users'\n" +
    "import { port } from '../config';\nexport const pool = { port };\n",
  'db/index.ts': "export { pool } from './pool';\n",
  'users/users.ts': "import { pool } from '../db';\nexport const users = () => pool;\n",
  'users/user-repository.ts': "import { pool } from '../db/pool';\nexport const rows = pool;\n",
  'routes/users.ts': "import {\n  users,\n} from '../users/users';\nexport const route = users;\n",
  'main.ts': "import './routes/users';\nimport type { port } from './config';\n",
};

let src: string;
beforeEach(() => {
  src = mkdtempSync(join(tmpdir(), 'layers-'));
});
afterEach(() => rmSync(src, { recursive: true, force: true }));

function tree(files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  }
}

describe('expectLayers', () => {
  it('passes on a tree whose imports all point down', () => {
    tree(CLEAN);
    expect(() => expectLayers(src, LAYERS)).not.toThrow();
  });

  it('fails on an upward import, naming the file and the import', () => {
    tree({
      ...CLEAN,
      'db/pool.ts': "import { users } from '../users/users';\nexport const pool = 1;\n",
    });
    expect(() => expectLayers(src, LAYERS)).toThrow(
      'db/pool.ts imports ../users/users (upward: db → users)',
    );
  });

  it('fails on an import between two modules of the same layer', () => {
    tree({ ...CLEAN, 'config.ts': "export { send } from './mail/mailer';\n" });
    tree({ 'mail/mailer.ts': 'export const send = 1;\n' });
    expect(() => expectLayers(src, LAYERS)).toThrow(
      'config.ts imports ./mail/mailer (same layer: config → mail)',
    );
  });

  it('fails on a module placed in no layer', () => {
    tree({ ...CLEAN, 'sms/sender.ts': 'export const send = 1;\n' });
    expect(() => expectLayers(src, LAYERS)).toThrow('sms is in no layer');
  });

  it('fails on an import cycle inside one module, naming the files along it', () => {
    tree({
      ...CLEAN,
      'users/users.ts': "import { rows } from './user-repository';\nexport const users = rows;\n",
      'users/user-repository.ts': "import { users } from './users';\nexport const rows = users;\n",
    });
    expect(() => expectLayers(src, LAYERS)).toThrow(
      'import cycle: users/users.ts → users/user-repository.ts → users/users.ts',
    );
  });

  it('fails on a cycle through an index file and a dynamic import', () => {
    tree({ ...CLEAN, 'db/pool.ts': "export const load = () => import('./index');\n" });
    expect(() => expectLayers(src, LAYERS)).toThrow(
      'import cycle: db/index.ts → db/pool.ts → db/index.ts',
    );
  });

  it('applies extra rules given as options', () => {
    tree(CLEAN);
    tree({ 'routes/rows.ts': "import { rows } from '../users/user-repository';\n" });
    const forbidden = [
      { module: 'routes', imports: /-repository$/, because: 'routes call domain modules' },
    ];
    expect(() => expectLayers(src, LAYERS)).not.toThrow();
    expect(() => expectLayers(src, LAYERS, { forbidden })).toThrow(
      'routes/rows.ts imports ../users/user-repository (routes call domain modules)',
    );
  });

  it('keeps file roles in order, inside a module and across modules', () => {
    const roles = [
      { name: 'repository', files: /-repository$/ },
      { name: 'domain' },
      { name: 'routes', files: /-routes$/ },
    ];
    tree(CLEAN);
    tree({ 'users/user-routes.ts': "import { users } from './users';\nexport const r = users;\n" });
    expect(() => expectLayers(src, LAYERS, { roles })).not.toThrow();

    tree({
      'users/user-repository.ts': "import { r } from './user-routes';\nexport const rows = r;\n",
    });
    expect(() => expectLayers(src, LAYERS, { roles })).toThrow(
      'users/user-repository.ts imports ./user-routes (a repository file reaching a routes file)',
    );
    tree({
      'users/user-repository.ts': 'export const rows = 1;\n',
      'routes/users.ts': "import { r } from '../users/user-routes';\nexport const route = r;\n",
    });
    expect(() => expectLayers(src, LAYERS, { roles })).toThrow(
      'routes/users.ts imports ../users/user-routes (a domain file reaching a routes file)',
    );
  });

  it('layers the entries of a nested folder as modules of their own', () => {
    tree(CLEAN);
    tree({
      'api/app.ts': "import { handler } from './routes/tasks';\nexport const app = handler;\n",
      'api/routes/tasks.ts':
        "import { users } from '../../users/users';\nexport const handler = users;\n",
    });
    const layers = [...LAYERS.slice(0, 3), ['api/routes'], ['api/app'], ['routes'], ['main']];
    expect(() => expectLayers(src, layers, { nested: ['api'] })).not.toThrow();
    tree({ 'api/routes/tasks.ts': "import { app } from '../app';\nexport const handler = app;\n" });
    expect(() => expectLayers(src, layers, { nested: ['api'] })).toThrow(
      'api/routes/tasks.ts imports ../app (upward: api/routes → api/app)',
    );
  });

  it('lists every problem in one error', () => {
    tree({
      ...CLEAN,
      'config.ts': "import { route } from './routes/users';\n",
      'sms/sender.ts': '',
    });
    expect(() => expectLayers(src, LAYERS)).toThrow(
      /sms is in no layer\n.*config\.ts imports \.\/routes\/users \(upward: config → routes\)/,
    );
  });
});
