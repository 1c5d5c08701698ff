/**
 * An audio's way through the core backend: uploaded, kept in object storage (MinIO), transcribed
 * by an OpenAI-compatible speech-to-text server (the LLM stand-in, which reads a WAV file's
 * comment as what was said), cut into speaker chunks, summarised by the real summarizer, and
 * searchable for those it is shared with only; a passing failure retried, a refused file failed,
 * and everything removed on delete.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { makeWav, startLlmStub, type LlmStub } from '@pelita/llm-stub';
import { createSummarizerService, settingsSchema as summarizerSettings } from '@pelita/summarizer';
import { requireEnv } from '@pelita/testenv';
import { expectJson, startCoreStack, type CoreStack, type TestUser } from './support/core-stack';

interface Audio {
  id: string;
  name: string;
  state: string;
  summary_state: string;
  attempts: number;
  error: string | null;
  stt_model: string;
  diarize: boolean;
  suppress_numerals: boolean;
}

const env = requireEnv('S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_REGION');

const MEETING = [
  'Ratna: The walrus enclosure budget grows by forty percent in March.',
  'Budi: Then we hire two more keepers before the herring delivery.',
  'Ratna: Agreed, and the keepers start on the first Monday.',
].join('\n');

describe('audios', () => {
  let stub: LlmStub;
  let summarizer: RunningServer;
  let core: CoreStack;
  let dir: string;
  let owner: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let workspaceId: string;
  const bucket = `core-audio-${randomBytes(4).toString('hex')}`;
  const s3 = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY, secretAccessKey: env.S3_SECRET_KEY },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'core-audios-'));
    stub = await startLlmStub({ latencyMs: 0, models: ['pelita-stub', 'turbo'] });
    const logger = createLogger({ name: 'summarizer', level: 'silent' });
    summarizer = await serveInProcess(
      createSummarizerService(
        loadConfig(summarizerSettings, { BASE_URL_LOCAL: stub.url, MODEL_LOCAL: 'pelita-stub' }),
        logger,
      ),
      logger,
    );
    core = await startCoreStack({
      S3_ENDPOINT: env.S3_ENDPOINT,
      S3_ACCESS_KEY: env.S3_ACCESS_KEY,
      S3_SECRET_KEY: env.S3_SECRET_KEY,
      S3_REGION: env.S3_REGION,
      S3_BUCKET: bucket,
      TEMP_DIR: dir,
      // Speech-to-text falls back to the install's local model server.
      BASE_URL_LOCAL: stub.url,
      MODEL_LOCAL: 'pelita-stub',
      URL_SUMMARIZER: summarizer.url,
      AUDIO_POLL_INTERVAL_MS: '100',
      AUDIO_MAX_ATTEMPTS: '3',
    });
    owner = await core.admin();
    alice = await core.user('alice');
    bob = await core.user('bob');
    workspaceId = (
      await expectJson<{ id: string }>(
        core.call('POST', '/api/workspaces', owner.token, { name: 'Meetings' }),
        201,
      )
    ).id;
    for (const user of [alice, bob]) {
      await expectJson(
        core.call('PUT', `/api/workspaces/${workspaceId}/users/${user.id}`, owner.token, {
          role: 'editor',
        }),
        200,
      );
    }
  }, 120_000);
  afterAll(async () => {
    await core?.stop();
    await summarizer?.stop();
    await stub?.close();
    s3.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, user: TestUser, body?: unknown) =>
    core.call(method, `/api/workspaces/${workspaceId}${path}`, user.token, body);

  async function upload(user: TestUser, fileName: string, bytes: Buffer, name?: string) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
    if (name) form.append('name', name);
    const res = await fetch(`${core.url}/api/workspaces/${workspaceId}/audios`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}` },
      body: form,
    });
    return expectJson<Audio>(res, 201);
  }

  /** Waits until the audio's transcription and summary have both ended. */
  async function settled(user: TestUser, id: string): Promise<Audio> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const audio = await expectJson<Audio>(call('GET', `/audios/${id}`, user), 200);
      if (audio.state === 'failed' || (audio.state === 'done' && audio.summary_state !== 'pending'))
        return audio;
      if (Date.now() > deadline) throw new Error(`audio stuck: ${JSON.stringify(audio)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const search = (user: TestUser, query: string) =>
    expectJson<{ hits: Array<{ type: string; id: string; kind: string; text: string }> }>(
      call('POST', '/search', user, { query, k: 10 }),
      200,
    );

  let meeting: Audio;

  it("transcribes a recording with the seed's settings into speaker chunks and a summary", async () => {
    stub.resetStats();
    const created = await upload(alice, 'meeting.wav', makeWav({ seconds: 12, script: MEETING }));
    // The answer reads the row back: the worker may already have taken it.
    expect(['queued', 'transcribing']).toContain(created.state);
    expect(created).toMatchObject({
      name: 'meeting.wav',
      stt_model: 'turbo',
      diarize: true,
      suppress_numerals: false,
    });
    meeting = await settled(alice, created.id);
    expect(meeting).toMatchObject({ state: 'done', summary_state: 'done', error: null });

    const [sent] = stub.stats().transcriptions;
    expect(sent).toMatchObject({
      model: 'turbo',
      fileName: 'meeting.wav',
      responseFormat: 'verbose_json',
      diarize: true,
      suppressNumerals: false,
      status: 200,
    });

    const transcript = await expectJson<{
      text: string;
      speakers: string[];
      duration_seconds: number;
    }>(call('GET', `/audios/${meeting.id}/transcript`, alice), 200);
    expect(transcript.speakers).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(transcript.text.split('\n')).toEqual([
      'SPEAKER_00: The walrus enclosure budget grows by forty percent in March.',
      'SPEAKER_01: Then we hire two more keepers before the herring delivery.',
      'SPEAKER_00: Agreed, and the keepers start on the first Monday.',
    ]);
    expect(transcript.duration_seconds).toBeCloseTo(12, 0);

    const chunks = await expectJson<{
      total: number;
      data: Array<{ speaker: string; start_seconds: number; end_seconds: number; text: string }>;
    }>(call('GET', `/audios/${meeting.id}/chunks?limit=2`, alice), 200);
    expect(chunks.total).toBe(3);
    expect(chunks.data.map((c) => c.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(chunks.data[0]!.end_seconds).toBeGreaterThan(chunks.data[0]!.start_seconds);
    expect(chunks.data[1]!.start_seconds).toBeGreaterThanOrEqual(chunks.data[0]!.end_seconds);

    const summary = await expectJson<{ summary: string; key_points: string[] }>(
      call('GET', `/audios/${meeting.id}/summary`, alice),
      200,
    );
    expect(summary.summary.length).toBeGreaterThan(0);
    expect(Array.isArray(summary.key_points)).toBe(true);
  });

  it('makes the transcript and its summary searchable for those the audio is shared with', async () => {
    const { hits } = await search(alice, 'walrus enclosure budget');
    const mine = hits.filter((hit) => hit.id === meeting.id);
    expect(mine.map((hit) => hit.kind)).toContain('transcript');
    expect(mine.find((hit) => hit.kind === 'transcript')!.text).toMatch(/^SPEAKER_00: /);
    expect(hits.filter((hit) => hit.type === 'audio').every((h) => h.id === meeting.id)).toBe(true);

    // Bob is an editor of the workspace, but the audio is not shared with him.
    expect((await search(bob, 'walrus enclosure budget')).hits).toEqual([]);
    await expectJson(call('GET', `/audios/${meeting.id}/transcript`, bob), 404);
    await expectJson(
      call('PUT', `/audios/${meeting.id}/access`, alice, { user_ids: [alice.id, bob.id] }),
      200,
    );
    expect((await search(bob, 'walrus enclosure budget')).hits.map((h) => h.id)).toContain(
      meeting.id,
    );
  });

  it('tries a passing failure again, and fails a file the server refuses at once', async () => {
    stub.resetStats();
    stub.setFaults([{ match: 'flaky\\.wav', times: 1, fault: { kind: 'status', status: 503 } }]);
    const flaky = await upload(alice, 'flaky.wav', makeWav({ seconds: 2, script: 'A: herring' }));
    expect(await settled(alice, flaky.id)).toMatchObject({ state: 'done', attempts: 0 });
    expect(stub.stats().transcriptions.map((t) => t.status)).toEqual([503, 200]);

    stub.resetStats();
    stub.setFaults([{ match: 'refused\\.wav', fault: { kind: 'status', status: 400 } }]);
    const refusedUpload = await upload(alice, 'refused.wav', makeWav({ seconds: 1 }));
    const refused = await settled(alice, refusedUpload.id);
    expect(refused).toMatchObject({ state: 'failed', summary_state: 'none' });
    expect(refused.error).toMatch(/answered 400/);
    expect(stub.stats().transcriptions).toHaveLength(1);
    stub.setFaults([]);
  });

  it('transcribes again on request and renames', async () => {
    await expectJson(call('PATCH', `/audios/${meeting.id}`, alice, { name: 'Keeper plan' }), 200);
    stub.resetStats();
    const queued = await expectJson<Audio>(
      call('POST', `/audios/${meeting.id}/reprocess`, alice),
      200,
    );
    expect(['queued', 'transcribing']).toContain(queued.state);
    expect(await settled(alice, meeting.id)).toMatchObject({
      name: 'Keeper plan',
      state: 'done',
      summary_state: 'done',
    });
    expect(stub.stats().transcriptions).toHaveLength(1);
    const chunks = await expectJson<{ total: number }>(
      call('GET', `/audios/${meeting.id}/chunks`, alice),
      200,
    );
    expect(chunks.total).toBe(3);
  });

  it('refuses a file that is not a recording with 415, and an upload without a file with 400', async () => {
    const form = new FormData();
    form.append('file', new Blob(['minutes of the meeting']), 'notes.txt');
    const notes = await fetch(`${core.url}/api/workspaces/${workspaceId}/audios`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(notes.status).toBe(415);
    expect(await notes.json()).toMatchObject({ error: { code: 'unsupported_audio' } });

    const empty = new FormData();
    empty.append('name', 'nothing');
    const res = await fetch(`${core.url}/api/workspaces/${workspaceId}/audios`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: empty,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: expect.any(String) } });
  });

  it('deletes an audio with its transcript, passages and recording', async () => {
    await expectJson(call('DELETE', `/audios/${meeting.id}`, alice), 200);
    await expectJson(call('GET', `/audios/${meeting.id}`, alice), 404);
    expect((await search(alice, 'walrus enclosure budget')).hits).toEqual([]);
    await expect(
      s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `core-audios/${meeting.id}` })),
    ).rejects.toMatchObject({ name: 'NotFound' });
    const list = await expectJson<{ data: Audio[] }>(call('GET', '/audios', alice), 200);
    expect(list.data.map((a) => a.id)).not.toContain(meeting.id);
  });
});
