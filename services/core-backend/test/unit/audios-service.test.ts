/** What the audios service does with its repository and stored recordings, for an editor. */
import type { AudioRepository } from '../../src/audios/audio-repository';
import { createAudios, type AudiosDeps } from '../../src/audios/audios';
import { editor, editorWorkspace, fakeRepository, openAccess } from './knowledge-fakes';

const AUDIO = '00000000-0000-4000-8000-0000000000dd';
const stt = { model: 'whisper', diarize: true, suppressNumerals: false, language: null };

function audiosWith(repository: Partial<AudioRepository>, removed: string[] = []) {
  const { access, asked } = openAccess();
  const audios = createAudios({
    repository: fakeRepository<AudioRepository>(repository),
    access,
    workspaces: editorWorkspace,
    intake: {
      originals: {
        put: (id: string) => Promise.resolve(`core-audios/${id}`),
        remove: (key: string) => Promise.resolve(void removed.push(key)),
      },
      sttDefaults: () => stt,
    },
  } as unknown as AudiosDeps);
  return { audios, asked };
}

describe('audios service', () => {
  it('removes the stored recording when recording the audio fails', async () => {
    const removed: string[] = [];
    const { audios, asked } = audiosWith(
      { insert: () => Promise.reject(new Error('database away')) },
      removed,
    );
    await expect(
      audios.upload(editor, { path: '/tmp/a', fileName: 'a.mp3', size: 1 }, { name: 'a' }),
    ).rejects.toThrow('database away');
    expect(removed).toEqual([`core-audios/${asked[0]![2] as string}`]);
  });

  it('records the language asked for, else the install default', async () => {
    const languages: unknown[] = [];
    const { audios } = audiosWith({
      insert: (_client, row) => Promise.resolve(void languages.push(row.language)),
      byId: (id) => Promise.resolve({ id } as never),
    });
    const file = { path: '/tmp/a', fileName: 'a.mp3', size: 1 };
    await audios.upload(editor, file, { name: 'a', language: 'id' });
    await audios.upload(editor, file, { name: 'a' });
    expect(languages).toEqual(['id', null]);
  });

  it('reads the transcript only after the audio passed its access list', async () => {
    const order: string[] = [];
    const { audios, asked } = audiosWith({
      byId: (id) => {
        order.push('byId');
        return Promise.resolve({ id } as never);
      },
      transcript: () => {
        order.push('transcript');
        return Promise.resolve(undefined);
      },
    });
    await audios.transcript(editor, AUDIO);
    expect(asked).toEqual([['requireVisible', 'audio', AUDIO]]);
    expect(order).toEqual(['byId', 'transcript']);
  });
});
