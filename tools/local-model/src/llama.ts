/**
 * node-llama-cpp, loaded from the cache directory install.sh fills (it is not a dependency of
 * the repository: its native binaries are large and only `make dev` needs them). Only the part
 * of its API used here is typed.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LANES, type Lane } from './lanes';

export type ChatHistoryItem =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: string[] };

/** A compiled grammar the answer must follow (opaque here: handed back to node-llama-cpp). */
export type Grammar = object;

export interface PromptOptions {
  maxTokens: number;
  grammar?: Grammar;
  temperature: number;
  repeatPenalty: { penalty: number };
  signal?: AbortSignal;
  stopOnAbortSignal?: boolean;
  onTextChunk?: (text: string) => void;
}

export interface ChatSession {
  setChatHistory(history: ChatHistoryItem[]): void;
  prompt(text: string, options: PromptOptions): Promise<string>;
}

export interface LoadedModel {
  tokenize(text: string): unknown[];
  /** One chat session per lane, each on a context of its own (`lanes.ts`). */
  sessions: Record<Lane, ChatSession>;
  /** Context size in tokens (reported in the model list). */
  contextSize: number;
  /** A grammar for answers that follow this JSON schema (throws when it cannot be converted). */
  jsonSchemaGrammar(schema: object): Promise<Grammar>;
  /** A grammar for any JSON value (`json_object`). */
  jsonGrammar(): Promise<Grammar>;
}

interface NodeLlamaCpp {
  getLlama(options: { gpu: false; build: 'never' }): Promise<{
    createGrammarForJsonSchema(schema: object): Promise<Grammar>;
    getGrammarFor(type: 'json'): Promise<Grammar>;
    loadModel(options: { modelPath: string }): Promise<{
      tokenize(text: string): unknown[];
      createContext(options: { contextSize: number; threads: number }): Promise<{
        getSequence(): unknown;
      }>;
    }>;
  }>;
  LlamaChatSession: new (options: { contextSequence: unknown }) => ChatSession;
}

export async function loadModel(options: {
  cacheDir: string;
  modelPath: string;
  contextSize: number;
  threads: number;
}): Promise<LoadedModel> {
  const entry = join(options.cacheDir, 'npm', 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  const llamaCpp = (await import(pathToFileURL(entry).href)) as NodeLlamaCpp;
  // The prebuilt CPU binary only: never a build from source, never a GPU probe.
  const llama = await llamaCpp.getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const sessions = {} as Record<Lane, ChatSession>;
  for (const lane of LANES) {
    const context = await model.createContext({
      contextSize: options.contextSize,
      threads: options.threads,
    });
    sessions[lane] = new llamaCpp.LlamaChatSession({ contextSequence: context.getSequence() });
  }
  return {
    tokenize: (text) => model.tokenize(text),
    sessions,
    contextSize: options.contextSize,
    jsonSchemaGrammar: (schema) => llama.createGrammarForJsonSchema(schema),
    jsonGrammar: () => llama.getGrammarFor('json'),
  };
}
