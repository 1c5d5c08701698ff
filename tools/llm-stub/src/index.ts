/** @pelita/llm-stub: an OpenAI-compatible stand-in for the language model server. */
export {
  startLlmStub,
  type LlmStub,
  type LlmStubOptions,
  type RecordedCall,
  type RecordedTranscription,
  type StubStats,
} from './stub-server';
export { type Fault, type FaultInput, type FaultRule, ruleFromJson } from './faults';
export type { AnswerKey, SummaryMode } from './answer';
export type { StructuredOutputSupport } from './structured-output';
export { ENTITY_KEYS, type EntityKey } from './text-features';
export { makeWav } from './wav';
export type { Transcript, TranscriptSegment } from './transcription';
