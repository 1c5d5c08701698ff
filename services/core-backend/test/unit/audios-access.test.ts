/**
 * Audios decide access themselves: a viewer reads, never adds, renames, re-processes or deletes;
 * an outsider sees nothing. Refusals come before any query or stored recording.
 */
import { createAudios, type AudiosDeps } from '../../src/audios/audios';
import { fakeWorkspaces, outsider, refused, untouched, viewer } from './access-fakes';

const AUDIO = '00000000-0000-4000-8000-0000000000dd';

function setup() {
  const workspaces = fakeWorkspaces();
  const data = untouched();
  const reached = (name: string) => () => {
    data.uses.push(name);
    return Promise.reject(new Error(`${name} was reached`));
  };
  const audios = createAudios({
    repository: data.repository(),
    access: data.access,
    workspaces,
    knowledge: { remove: reached('knowledge') },
    intake: { originals: { put: reached('originals') }, sttDefaults: reached('stt') },
    deletions: { audio: reached('deletions') },
  } as unknown as AudiosDeps);
  return { workspaces, data, audios };
}
type Audios = ReturnType<typeof setup>['audios'];
const page = { page: 1, limit: 10 };

describe('audios and access', () => {
  it.each([
    ['mayAdd', (a: Audios) => a.mayAdd(viewer)],
    [
      'upload',
      (a: Audios) =>
        a.upload(viewer, { path: '/tmp/x', fileName: 'a.mp3', size: 1 }, { name: 'a' }),
    ],
    ['rename', (a: Audios) => a.rename(viewer, AUDIO, 'b')],
    ['reprocess', (a: Audios) => a.reprocess(viewer, AUDIO)],
    ['remove', (a: Audios) => a.remove(viewer, AUDIO)],
  ])(
    'refuses a viewer %s with 403 (knowledge.write) before touching anything',
    async (_n, call) => {
      const { audios, workspaces, data } = setup();
      await expect(call(audios)).rejects.toEqual(refused(403));
      expect(workspaces.asked).toEqual(['knowledge.write']);
      expect(data.uses).toEqual([]);
    },
  );

  it.each([
    ['list', (a: Audios) => a.list(outsider, page)],
    ['find', (a: Audios) => a.find(outsider, AUDIO)],
    ['transcript', (a: Audios) => a.transcript(outsider, AUDIO)],
    ['chunks', (a: Audios) => a.chunks(outsider, AUDIO, page)],
    ['summary', (a: Audios) => a.summary(outsider, AUDIO)],
  ])('answers an outsider %s with 404 (knowledge.read) before any query', async (_n, call) => {
    const { audios, workspaces, data } = setup();
    await expect(call(audios)).rejects.toEqual(refused(404));
    expect(workspaces.asked).toEqual(['knowledge.read']);
    expect(data.uses).toEqual([]);
  });

  it("lets a viewer read: the audio's access list is asked next", async () => {
    const { audios, data } = setup();
    await expect(audios.transcript(viewer, AUDIO)).rejects.toThrow(
      'access.requireVisible was reached',
    );
    expect(data.uses).toEqual(['access.requireVisible']);
  });
});
