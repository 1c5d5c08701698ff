import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataFile } from '../../src/sync/data-file';
import { CorruptDataFileError, DataFileError } from '../../src/sync/sync-errors';

const freshDir = () => mkdtempSync(join(tmpdir(), 'policy-sync-file-'));

describe('the shared data file', () => {
  it('reads nothing before the first write, then what was written', async () => {
    const dir = freshDir();
    const file = createDataFile(join(dir, 'data.json'));
    expect(await file.read()).toBeUndefined();
    const written = await file.write({ user_roles: { ann: ['r'] } });
    expect(written.text).toBe('{"user_roles":{"ann":["r"]}}');
    expect(await file.read()).toEqual(written);
    expect(await readFile(join(dir, 'data.json'), 'utf8')).toBe(written.text);
    expect(await readdir(dir)).toEqual(['data.json']);
    expect((await stat(join(dir, 'data.json'))).mode & 0o777).toBe(0o644);
  });

  it('creates a missing directory', async () => {
    const path = join(freshDir(), 'share', 'data.json');
    await createDataFile(path).write({});
    expect(await readFile(path, 'utf8')).toBe('{}');
  });

  it('reports a corrupt file as such', async () => {
    const path = join(freshDir(), 'data.json');
    for (const content of ['{"user_roles": ', '[1, 2]', 'null']) {
      writeFileSync(path, content);
      await expect(createDataFile(path).read()).rejects.toBeInstanceOf(CorruptDataFileError);
    }
  });

  it('fails with the path named, and leaves no temporary file, when it cannot write', async () => {
    const dir = freshDir();
    // A directory where the file should be: the rename fails after the temporary file was written.
    const path = join(dir, 'data.json');
    mkdirSync(path);
    const error = await createDataFile(path)
      .write({ a: 1 })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain(path);
    expect(await readdir(dir)).toEqual(['data.json']);
  });
});
