import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  applyMissing,
  formatEnv,
  parseEnv,
  readEnvFile,
  writeEnvFile,
} from '../../src/lib/env-file';

describe('parseEnv', () => {
  it('reads KEY=VALUE lines, skipping comments and blank lines', () => {
    const text = '# comment\n\nA=1\r\nURL=postgres://u:p@h:1/db?x=y\nEMPTY=\n';
    expect(parseEnv(text)).toEqual({ A: '1', URL: 'postgres://u:p@h:1/db?x=y', EMPTY: '' });
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseEnv('A=1\nnot a setting\n')).toThrow('line 2');
    expect(() => parseEnv('lower=1')).toThrow('line 1');
  });
});

describe('formatEnv', () => {
  it('round-trips through parseEnv, in insertion order, with the comment first', () => {
    const values = { POSTGRES_URL: 'postgres://a:b@127.0.0.1:5/c', B: 'x=y' };
    const text = formatEnv(values, 'first\nsecond');
    expect(text).toBe('# first\n# second\nPOSTGRES_URL=postgres://a:b@127.0.0.1:5/c\nB=x=y\n');
    expect(parseEnv(text)).toEqual(values);
  });

  it('refuses what parseEnv could not read back', () => {
    expect(() => formatEnv({ A: 'two\nlines' })).toThrow('A');
    expect(() => formatEnv({ A: ' padded' })).toThrow('A');
    expect(() => formatEnv({ 'bad-key': '1' })).toThrow('bad-key');
  });
});

describe('env file on disk', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'testenv-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads back what it wrote, leaving no temporary file', () => {
    const file = path.join(dir, 'testenv.env');
    writeEnvFile(file, { REDIS_URL: 'redis://127.0.0.1:1' }, 'hello');
    expect(readEnvFile(file)).toEqual({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(fs.readdirSync(dir)).toEqual(['testenv.env']);
  });

  it('returns undefined for a missing file', () => {
    expect(readEnvFile(path.join(dir, 'absent.env'))).toBeUndefined();
  });
});

describe('applyMissing', () => {
  it('adds absent keys and keeps those already set, even when empty', () => {
    const target: Record<string, string | undefined> = { A: 'mine', B: '' };
    applyMissing(target, { A: 'file', B: 'file', C: 'file' });
    expect(target).toEqual({ A: 'mine', B: '', C: 'file' });
  });
});
