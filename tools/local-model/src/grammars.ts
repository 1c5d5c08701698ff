/**
 * The grammar a `response_format` asks for, compiled once per schema: compiling a JSON-schema
 * grammar takes longer than a short answer, and the platform's services send the same few
 * schemas again and again.
 */
import type { Grammar, LoadedModel } from './llama';

export type RequestedFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { schema: Record<string, unknown> } };

/** Schemas kept compiled; beyond this the oldest is dropped. */
const MAX_CACHED = 32;

export function grammarCache(model: Pick<LoadedModel, 'jsonSchemaGrammar' | 'jsonGrammar'>) {
  const compiled = new Map<string, Promise<Grammar>>();
  return {
    /** Undefined for free text; rejects when node-llama-cpp cannot convert the schema. */
    forFormat(format: RequestedFormat | undefined): Promise<Grammar | undefined> {
      if (!format || format.type === 'text') return Promise.resolve(undefined);
      if (format.type === 'json_object') return cached('json', () => model.jsonGrammar());
      // The dialect marker is not part of what the answer must look like.
      const { $schema: _dialect, ...schema } = format.json_schema.schema;
      return cached(JSON.stringify(schema), () => model.jsonSchemaGrammar(schema));
    },
  };

  function cached(key: string, make: () => Promise<Grammar>): Promise<Grammar> {
    let grammar = compiled.get(key);
    if (!grammar) {
      grammar = make();
      // A schema that failed to compile is not kept: the error goes to this caller only.
      grammar.catch(() => compiled.delete(key));
      compiled.set(key, grammar);
      if (compiled.size > MAX_CACHED) compiled.delete(compiled.keys().next().value!);
    }
    return grammar;
  }
}
