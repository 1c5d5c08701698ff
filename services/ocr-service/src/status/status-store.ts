/**
 * Task status records in Redis, shared by every API replica and worker: any replica answers for
 * any task, and a restart of any part loses nothing. The seed keeps the newest 1000 and evicts
 * the oldest; here only finished tasks are evicted (a task still queued or running keeps its
 * record, and the queue's own bound caps those). Updates merge atomically in Redis, so two
 * parts writing the same task never lose each other's fields.
 */
import type { Redis } from 'ioredis';
import { TaskRecordSchema, type TaskRecord } from './task-record';

export interface StatusStoreOptions {
  /** Key prefix; one per install. */
  prefix: string;
  /** Finished records kept at most (the seed's 1000). */
  keep: number;
}

// KEYS: record, index. ARGV: json, score, keep, record key prefix.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], cjson.decode(ARGV[1]).task_id)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if excess > 0 then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, excess * 4 + 16)
  for _, id in ipairs(oldest) do
    if excess <= 0 then break end
    local raw = redis.call('GET', ARGV[4] .. id)
    local finished = true
    if raw then
      local status = cjson.decode(raw).status
      finished = status == 'done' or status == 'failed'
    end
    if finished then
      redis.call('DEL', ARGV[4] .. id)
      redis.call('ZREM', KEYS[2], id)
      excess = excess - 1
    end
  end
end
return 1
`;

// KEYS: record. ARGV: patch json. Merges the patch into the stored record.
const UPDATE = `
local raw = redis.call('GET', KEYS[1])
if not raw then return nil end
local record = cjson.decode(raw)
for key, value in pairs(cjson.decode(ARGV[1])) do record[key] = value end
local merged = cjson.encode(record)
redis.call('SET', KEYS[1], merged)
return merged
`;

export interface StatusStore {
  /** Saves a new record; false when the task id is taken. */
  create(record: TaskRecord): Promise<boolean>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Merges `patch` into the record; undefined when there is none (evicted or never created). */
  update(taskId: string, patch: Partial<TaskRecord>): Promise<TaskRecord | undefined>;
  /** Removes a record (a task refused after its id was claimed: the queue was full). */
  remove(taskId: string): Promise<void>;
  /** Records kept, by status and stage (for metrics; at most the kept records are read). */
  counts(): Promise<Array<{ status: string; stage: string; count: number }>>;
}

export function createStatusStore(redis: Redis, options: StatusStoreOptions): StatusStore {
  const recordPrefix = `${options.prefix}:task:`;
  const index = `${options.prefix}:tasks`;
  let sequence = 0;
  const parse = (raw: string | null | undefined) =>
    raw ? TaskRecordSchema.parse(JSON.parse(raw)) : undefined;

  return {
    async create(record) {
      // Creation order, also within one millisecond on one replica.
      const score = Date.now() * 1000 + (sequence = (sequence + 1) % 1000);
      const created = await redis.eval(
        CREATE,
        2,
        recordPrefix + record.task_id,
        index,
        JSON.stringify(record),
        String(score),
        String(options.keep),
        recordPrefix,
      );
      return created === 1;
    },
    async get(taskId) {
      return parse(await redis.get(recordPrefix + taskId));
    },
    async update(taskId, patch) {
      const merged = (await redis.eval(UPDATE, 1, recordPrefix + taskId, JSON.stringify(patch))) as
        string | null;
      return parse(merged);
    },
    async remove(taskId) {
      await redis
        .multi()
        .del(recordPrefix + taskId)
        .zrem(index, taskId)
        .exec();
    },
    async counts() {
      const ids = await redis.zrange(index, 0, -1);
      const tally = new Map<string, { status: string; stage: string; count: number }>();
      // MGET in slices: one huge reply would hold Redis up for every other client.
      for (let at = 0; at < ids.length; at += 200) {
        const raws = await redis.mget(ids.slice(at, at + 200).map((id) => recordPrefix + id));
        for (const raw of raws) {
          const record = parse(raw);
          if (!record) continue;
          const key = `${record.status}/${record.stage}`;
          const entry = tally.get(key) ?? { status: record.status, stage: record.stage, count: 0 };
          entry.count += 1;
          tally.set(key, entry);
        }
      }
      return [...tally.values()];
    },
  };
}
