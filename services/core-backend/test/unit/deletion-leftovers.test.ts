import {
  documentLeftovers,
  ocrTasksOf,
  retryDelayMs,
  workspaceLeftovers,
} from '../../src/deletion/leftovers';

const document = (fields: Partial<Parameters<typeof ocrTasksOf>[0]> = {}) => ({
  id: 'd1',
  source: 'upload',
  attempt: 0,
  original_key: 'core-documents/d1',
  state: 'done',
  summary_state: 'done',
  ...fields,
});

describe('what a deletion leaves to remove', () => {
  it('names every task a document has had, and the next one a racing re-processing may send', () => {
    expect(ocrTasksOf(document({ attempt: 2 }))).toEqual([
      { taskId: 'd1', running: false },
      { taskId: 'd1-1', running: false },
      { taskId: 'd1-2', running: false },
      { taskId: 'd1-3', running: true },
    ]);
  });

  it('waits for the current task while it is processed or its summary is awaited', () => {
    for (const fields of [
      { state: 'queued' },
      { state: 'processing' },
      { state: 'done', summary_state: 'pending' },
    ]) {
      const tasks = ocrTasksOf(document({ attempt: 1, ...fields }));
      expect(tasks.find((task) => task.taskId === 'd1-1')?.running).toBe(true);
      expect(tasks.find((task) => task.taskId === 'd1')?.running).toBe(false);
    }
    expect(ocrTasksOf(document({ state: 'failed' }))[0]).toEqual({ taskId: 'd1', running: false });
  });

  it('removes a document’s passages, tasks and kept original', () => {
    expect(documentLeftovers(document())).toEqual({
      resources: [{ type: 'document', id: 'd1' }],
      ocrTasks: ocrTasksOf(document()),
      objects: ['core-documents/d1'],
    });
    expect(documentLeftovers(document({ source: 'url', original_key: null })).objects).toEqual([]);
    // An upload deleted while being sent: its original may be stored before it is recorded.
    expect(documentLeftovers(document({ original_key: null })).objects).toEqual([
      'core-documents/d1',
    ]);
  });

  it('removes a workspace’s passages by workspace, and every document’s and audio’s files', () => {
    const leftovers = workspaceLeftovers(
      'w1',
      [document()],
      [{ id: 'a1', original_key: 'core-audios/a1' }],
    );
    expect(leftovers.workspacePassages).toBe('w1');
    expect(leftovers.objects).toEqual(['core-documents/d1', 'core-audios/a1']);
    expect(leftovers.ocrTasks.map((task) => task.taskId)).toEqual(['d1', 'd1-1']);
  });

  it('doubles the pause after each failed try, up to the most', () => {
    expect([1, 2, 3, 4, 10, 100].map((n) => retryDelayMs(n, 5000, 60_000))).toEqual([
      5000, 10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
  });
});
