/**
 * Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint, through the `openai` package,
 * in batches. Off (undefined) when no embeddings model is configured: retrieval is BM25 only.
 */
import OpenAI from 'openai';

export interface Embedder {
  model: string;
  embed(texts: string[]): Promise<number[][]>;
}

export interface EmbedderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  /** Inputs per request. */
  batchSize?: number;
}

export function createEmbedder(options: EmbedderOptions): Embedder {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // The package insists on a key; servers without authentication ignore it.
    apiKey: options.apiKey ?? 'unused',
    timeout: options.timeoutMs,
    maxRetries: 2,
  });
  const batchSize = options.batchSize ?? 64;
  return {
    model: options.model,
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        const input = texts.slice(start, start + batchSize);
        const answer = await client.embeddings.create({
          model: options.model,
          input,
          encoding_format: 'float',
        });
        const ordered = [...answer.data].sort((a, b) => a.index - b.index);
        if (ordered.length !== input.length) {
          throw new Error(`embeddings: ${input.length} inputs, ${ordered.length} vectors`);
        }
        vectors.push(...ordered.map((item) => item.embedding));
      }
      return vectors;
    },
  };
}
