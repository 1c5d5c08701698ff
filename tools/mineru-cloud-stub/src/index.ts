/** @pelita/mineru-cloud-stub: a stand-in for MinerU's cloud task API (v4), for tests and benchmarks. */
export {
  startMineruCloudStub,
  type MineruCloudStub,
  type MineruCloudStubOptions,
} from './stub-server';
export type { FileRecord, StubStats } from './task-registry';
export {
  type Fault,
  type FaultInput,
  type FaultKind,
  type FaultRule,
  ruleFromJson,
} from './faults';
export type { TaskState, SubmittedOptions } from './file-task';
export { ERROR_CODES } from './error-codes';
export type { OptionsPatch } from './api-schemas';
