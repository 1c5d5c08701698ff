/**
 * The seed's secret manager (002 B): the summarizer's model settings read from Infisical (the
 * double under tools/vendor-doubles speaks its API), through the kit's settings source that every
 * service starts with. Environment variables win, DISABLE_INFISICAL=1 turns the store off, a
 * store that cannot be read stops start-up with a clear message, refreshes keep the last good
 * values, the summarizer uses a changed model at once, and no secret value reaches a log line.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ConfigError, createLogger, openSettingsSource } from '@pelita/kit';
import { startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { waitFor } from '@pelita/testenv';
import { startInfisicalDouble, type InfisicalDouble } from '@pelita/vendor-doubles';
import { settingsSchema } from '../../src';

const ENTRY = join(__dirname, '..', '..', 'dist', 'main.js');
const SCOPE = { projectId: 'proj-summarizer', environment: 'prod', secretPath: '/summarizer' };
const CLIENT_ID = 'machine-identity-1';
const CLIENT_SECRET = 'client-secret-9f2c41d7';
const API_KEY = 'sk-from-the-store-7d1e';

/** A logger whose lines are kept, to look for secrets in them. */
function capturingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ name: 'summarizer', level: 'debug', destination: sink }), lines };
}

describe('settings from the secret store', () => {
  let store: InfisicalDouble;
  let stub: LlmStub;
  const storeEnv = () => ({
    INFISICAL_URL: store.url,
    INFISICAL_CLIENT_ID: CLIENT_ID,
    INFISICAL_CLIENT_SECRET: CLIENT_SECRET,
    INFISICAL_PROJECT_ID: SCOPE.projectId,
    INFISICAL_ENVIRONMENT: SCOPE.environment,
    INFISICAL_SECRET_PATH: SCOPE.secretPath,
  });

  beforeAll(async () => {
    stub = await startLlmStub({ models: ['pelita-stub', 'store-model'] });
    store = await startInfisicalDouble();
    store.addIdentity(CLIENT_ID, CLIENT_SECRET);
  });
  afterAll(async () => {
    await store?.close();
    await stub?.close();
  });
  beforeEach(() => {
    store.setSecret(SCOPE, 'BASE_URL_LOCAL', stub.url);
    store.setSecret(SCOPE, 'MODEL_LOCAL', 'store-model');
    store.setSecret(SCOPE, 'API_KEY_LOCAL', API_KEY);
  });

  it('reads the settings the store names; a variable of the environment wins', async () => {
    const source = await openSettingsSource(settingsSchema, { env: storeEnv() });
    expect(source.settings).toMatchObject({
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'store-model',
      API_KEY_LOCAL: API_KEY,
    });
    const overridden = await openSettingsSource(settingsSchema, {
      env: { ...storeEnv(), MODEL_LOCAL: 'pelita-stub', API_KEY_LOCAL: '' },
    });
    // Set wins; empty counts as unset, so the store's value stays.
    expect(overridden.settings).toMatchObject({
      MODEL_LOCAL: 'pelita-stub',
      API_KEY_LOCAL: API_KEY,
    });
  });

  it('is off with DISABLE_INFISICAL=1: only the environment counts', async () => {
    await expect(
      openSettingsSource(settingsSchema, { env: { ...storeEnv(), DISABLE_INFISICAL: '1' } }),
    ).rejects.toThrow(/BASE_URL_LOCAL/);
    const plain = await openSettingsSource(settingsSchema, {
      env: {
        ...storeEnv(),
        DISABLE_INFISICAL: '1',
        BASE_URL_LOCAL: 'http://127.0.0.1:9/v1',
        MODEL_LOCAL: 'env-model',
      },
    });
    expect(plain.settings).toMatchObject({ MODEL_LOCAL: 'env-model', API_KEY_LOCAL: '' });
  });

  it('stops start-up with a clear message, never the secret, when refused or away', async () => {
    const refused = openSettingsSource(settingsSchema, {
      env: { ...storeEnv(), INFISICAL_CLIENT_SECRET: 'wrong-secret-0001' },
    });
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(/secret store at .* could not be read: .*401/);
    await expect(refused).rejects.not.toThrow(/wrong-secret-0001/);

    store.failNext(503, 1);
    await expect(openSettingsSource(settingsSchema, { env: storeEnv() })).rejects.toThrow(
      /could not be read: .*503.*DISABLE_INFISICAL=1/,
    );
    await expect(
      openSettingsSource(settingsSchema, {
        env: { ...storeEnv(), INFISICAL_URL: 'http://127.0.0.1:9' },
      }),
    ).rejects.toThrow(/did not answer/);
    await expect(
      openSettingsSource(settingsSchema, { env: { INFISICAL_URL: store.url } }),
    ).rejects.toThrow(/INFISICAL_URL needs INFISICAL_CLIENT_ID/);
  });

  it('refreshes, keeping the last good values through an outage and a bad value', async () => {
    const { logger, lines } = capturingLogger();
    const source = await openSettingsSource(settingsSchema, { env: storeEnv() });

    store.setSecret(SCOPE, 'MODEL_LOCAL', 'pelita-stub');
    expect(await source.refresh(logger)).toBe(true);
    expect(source.latest().MODEL_LOCAL).toBe('pelita-stub');
    expect(source.settings.MODEL_LOCAL).toBe('store-model');

    store.failNext(503, 1);
    store.setSecret(SCOPE, 'MODEL_LOCAL', 'store-model');
    expect(await source.refresh(logger)).toBe(false);
    expect(source.latest().MODEL_LOCAL).toBe('pelita-stub');

    store.setSecret(SCOPE, 'BASE_URL_LOCAL', 'not a url');
    expect(await source.refresh(logger)).toBe(false);
    expect(source.latest()).toMatchObject({ BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' });

    store.setSecret(SCOPE, 'BASE_URL_LOCAL', stub.url);
    store.setSecret(SCOPE, 'API_KEY_LOCAL', 'sk-rotated-5a5a');
    expect(await source.refresh(logger)).toBe(true);
    expect(source.latest()).toMatchObject({
      MODEL_LOCAL: 'store-model',
      API_KEY_LOCAL: 'sk-rotated-5a5a',
    });

    const logged = lines.join('');
    expect(logged).toMatch(/could not be read: the last values stay/);
    expect(logged).toMatch(/do not parse: the last values stay/);
    expect(logged).toMatch(/"changed":\["API_KEY_LOCAL","MODEL_LOCAL"\]/);
    for (const secret of [API_KEY, 'sk-rotated-5a5a', CLIENT_SECRET]) {
      expect(logged).not.toContain(secret);
    }
  });

  it('runs the summarizer process from the store and uses a changed model at once', async () => {
    const child = spawn(process.execPath, [ENTRY], {
      env: { ...process.env, PORT: '0', ...storeEnv(), INFISICAL_REFRESH_SECONDS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => output.push(line));
    try {
      const port = await waitFor(
        () =>
          output
            .map((line) => JSON.parse(line) as { msg?: string; port?: number })
            .find((line) => line.msg === 'listening')?.port ?? false,
        { what: 'the summarizer listening', timeoutMs: 20_000 },
      );
      const health = async () =>
        (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as {
          configured_model: string;
        };
      expect((await health()).configured_model).toBe('store-model');

      store.setSecret(SCOPE, 'MODEL_LOCAL', 'pelita-stub');
      await waitFor(async () => (await health()).configured_model === 'pelita-stub', {
        what: 'the new model in use',
        timeoutMs: 10_000,
      });
      const form = new FormData();
      form.append('file', new Blob(['Ani met Budi in Jakarta.']), 'note.txt');
      const entities = await fetch(`http://127.0.0.1:${port}/extract_entities`, {
        method: 'POST',
        body: form,
      });
      expect(entities.status).toBe(200);
      expect(stub.stats().calls.at(-1)?.model).toBe('pelita-stub');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    for (const secret of [API_KEY, CLIENT_SECRET]) expect(output.join('\n')).not.toContain(secret);
  });

  it('exits at start with the reason when the store refuses the identity', async () => {
    const child = spawn(process.execPath, [ENTRY], {
      env: { ...process.env, PORT: '0', ...storeEnv(), INFISICAL_CLIENT_SECRET: 'nope-3c3c3c' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/summarizer failed to start: The secret store at .* could not be read/);
    expect(stderr).not.toContain('nope-3c3c3c');
  });
});
