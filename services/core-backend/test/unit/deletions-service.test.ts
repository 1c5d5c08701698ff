/**
 * The deletions over a fake repository and fake stores: a deletion runs its job at once and
 * finishes it; a store failing leaves the job to be retried, counted as an attempt; a resource
 * already gone runs nothing.
 */
import { createLogger } from '@pelita/kit';
import { Registry } from 'prom-client';
import type {
  DeletionJob,
  DeletionRepository,
  Leftovers,
} from '../../src/deletion/deletion-repository';
import { createDeletions } from '../../src/deletion/deletions';
import type { LeftoverStores } from '../../src/deletion/remove-leftovers';

function setup(options: { failIndex?: boolean } = {}) {
  const calls: string[] = [];
  const jobs = new Map<string, DeletionJob>();
  const record = (kind: DeletionJob['kind'], target: string, leftovers: Leftovers) => {
    const id = `job-${jobs.size + 1}`;
    jobs.set(id, {
      id,
      kind,
      target_id: target,
      workspace_id: 'w1',
      leftovers,
      attempts: 0,
      last_error: null,
      created_at: new Date(),
      finished_at: null,
    });
    return id;
  };
  const repository = {
    deleteWorkspace: (
      id: string,
      leftovers: Parameters<DeletionRepository['deleteWorkspace']>[1],
    ) =>
      Promise.resolve(
        id === 'w1'
          ? record('workspace', id, leftovers([], [{ id: 'a1', original_key: 'core-audios/a1' }]))
          : undefined,
      ),
    deleteDocument: () => Promise.resolve(undefined),
    deleteAudio: () => Promise.resolve(undefined),
    get: (id: string) => Promise.resolve(jobs.get(id)),
    finish: (id: string) => Promise.resolve(void calls.push(`finish ${id}`)),
    later: (id: string, _delay: number, _reason: string, failed: boolean) =>
      Promise.resolve(void calls.push(`later ${id} ${failed ? 'failed' : 'waiting'}`)),
  } as unknown as DeletionRepository;
  const stores: LeftoverStores = {
    knowledge: {
      removeWorkspace: (id: string) =>
        options.failIndex
          ? Promise.reject(new Error('index away'))
          : Promise.resolve(void calls.push(`passages of ${id}`)),
    } as unknown as LeftoverStores['knowledge'],
    artifacts: {} as LeftoverStores['artifacts'],
    ocr: undefined,
    objects: { remove: (key) => Promise.resolve(void calls.push(`object ${key}`)) },
    summaryWaitMs: 0,
  };
  const deletions = createDeletions({
    ...stores,
    jobs: repository,
    logger: createLogger({ name: 'test', level: 'silent' }),
    registry: new Registry(),
  });
  return { deletions, calls };
}

describe('deletions', () => {
  it("runs a workspace's job at once: its passages and files go, the job is finished", async () => {
    const { deletions, calls } = setup();
    await deletions.workspace('w1');
    expect(calls).toEqual(['passages of w1', 'object core-audios/a1', 'finish job-1']);
  });

  it('leaves a job whose store failed to the worker, counted as an attempt; the rest still goes', async () => {
    const { deletions, calls } = setup({ failIndex: true });
    await deletions.workspace('w1');
    expect(calls).toEqual(['object core-audios/a1', 'later job-1 failed']);
  });

  it('runs nothing for what is already gone', async () => {
    const { deletions, calls } = setup();
    await deletions.workspace('gone');
    await deletions.document('d1');
    expect(calls).toEqual([]);
  });
});
