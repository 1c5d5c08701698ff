/** The summarizer's own Prometheus series, registered on the kit's registry. */
import { declareSeries } from '@pelita/kit';
import type { Counter, Histogram, Registry } from 'prom-client';

export type CallOperation = 'chunk' | 'reduce' | 'final' | 'final_text' | 'entities' | 'models';

export interface SummarizerMetrics {
  llmCalls: Counter<'operation' | 'outcome'>;
  llmCallDuration: Histogram<'operation'>;
  llmHttpAttempts: Counter<'status'>;
  chunksProcessed: Counter<'stage' | 'outcome'>;
  tokens: Counter<'direction'>;
  reductionLoops: Counter<'ended'>;
  answers: Counter<'operation' | 'attempt' | 'mode'>;
  formatDowngrades: Counter<'from' | 'to'>;
  degraded: Counter<'what'>;
}

export function createSummarizerMetrics(registry: Registry): SummarizerMetrics {
  return declareSeries(registry, {
    llmCalls: {
      kind: 'counter',
      name: 'summarizer_llm_calls_total',
      help: 'Model calls (one parse attempt each, transport retries included), by operation and outcome',
      labels: ['operation', 'outcome'],
    },
    llmCallDuration: {
      kind: 'histogram',
      name: 'summarizer_llm_call_duration_seconds',
      help: 'Duration of model calls, transport retries included, by operation',
      labels: ['operation'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    },
    llmHttpAttempts: {
      kind: 'counter',
      name: 'summarizer_llm_http_attempts_total',
      help: 'HTTP requests sent to the model server (each retry counts), by response status or "error"',
      labels: ['status'],
    },
    chunksProcessed: {
      kind: 'counter',
      name: 'summarizer_chunks_processed_total',
      help: 'Chunks summarised, by stage (initial, reduction, entities) and outcome (ok, failed)',
      labels: ['stage', 'outcome'],
    },
    tokens: {
      kind: 'counter',
      name: 'summarizer_llm_tokens_total',
      help: 'Tokens sent to (in) and received from (out) the model, from usage figures or estimated',
      labels: ['direction'],
    },
    reductionLoops: {
      kind: 'counter',
      name: 'summarizer_reduction_loops_total',
      help: 'Re-summarising loops by how they ended: not_needed, target_reached, no_shrink, pass_limit',
      labels: ['ended'],
    },
    answers: {
      kind: 'counter',
      name: 'summarizer_llm_answers_total',
      help: 'Usable model answers, by operation, the parse attempt that gave them (1-3) and how JSON was asked for (json_schema, json_object, prompt, text)',
      labels: ['operation', 'attempt', 'mode'],
    },
    formatDowngrades: {
      kind: 'counter',
      name: 'summarizer_structured_output_downgrades_total',
      help: 'Times the model server refused a response_format and the model moved down to another mode',
      labels: ['from', 'to'],
    },
    degraded: {
      kind: 'counter',
      name: 'summarizer_degraded_results_total',
      help: 'Results given in a degraded form: final_text (final summary from a plain-text answer), final_joined (the chunk summaries joined), entities_empty (no entity answer parsed)',
      labels: ['what'],
    },
  });
}
