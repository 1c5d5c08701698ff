/**
 * Scriptable faults: each rule picks requests (by a pattern over the prompt, a rate, a count)
 * and says what goes wrong with them. Every rule that picks a request applies to it.
 */
import { z } from 'zod';

const FaultSchema = z.discriminatedUnion('kind', [
  /** Wait before answering (added to the stub's base latency). */
  z.object({ kind: z.literal('latency'), ms: z.number().int().min(0) }),
  /** Answer with an HTTP error in the OpenAI error shape, optionally with retry hints. */
  z.object({
    kind: z.literal('status'),
    status: z.number().int().min(400).max(599),
    retryAfterSeconds: z.number().min(0).optional(),
    retryAfterMs: z.number().min(0).optional(),
  }),
  /** Close the connection without answering (a transport error for the client). */
  z.object({ kind: z.literal('reset') }),
  /** Prose instead of JSON: nothing to parse or repair. */
  z.object({ kind: z.literal('malformed') }),
  /** JSON5-ish answer (unquoted keys, trailing commas) that a repair step can fix. */
  z.object({ kind: z.literal('broken-json') }),
  /** A `<think>` reasoning block before the answer. */
  z.object({ kind: z.literal('think') }),
  /** The answer inside a ```json code fence. */
  z.object({ kind: z.literal('fence') }),
  /** The answer cut after `fraction` of its characters, `finish_reason: "length"`. */
  z.object({ kind: z.literal('truncate'), fraction: z.number().min(0).max(1).default(0.8) }),
  /** The summary is the whole input: a model that does not shrink the text. */
  z.object({ kind: z.literal('no-shrink') }),
  /**
   * A streamed answer that fails part-way: `afterChunks` content chunks are sent, then after
   * `pauseMs` (a stall, for a client's time-out between chunks) the connection is dropped.
   * Answers that are not streamed are not affected.
   */
  z.object({
    kind: z.literal('stream-break'),
    afterChunks: z.number().int().min(0).default(1),
    pauseMs: z.number().int().min(0).default(0),
  }),
]);
export type Fault = z.output<typeof FaultSchema>;
export type FaultInput = z.input<typeof FaultSchema>;

/** A rule as sent over the control API: the pattern is a regular expression source. */
export const FaultRuleSchema = z.object({
  match: z.string().optional(),
  flags: z
    .string()
    .regex(/^[imsu]*$/)
    .optional(),
  rate: z.number().min(0).max(1).optional(),
  times: z.number().int().min(0).optional(),
  fault: FaultSchema,
});

export interface FaultRule {
  /** Tested against every message content of the request joined by newlines. */
  match?: string | RegExp;
  /** Share of the matching requests the rule applies to (seeded, so runs repeat). */
  rate?: number;
  /** The rule applies to the first `times` requests it picks, then never again. */
  times?: number;
  fault: FaultInput;
}

export function ruleFromJson(json: z.input<typeof FaultRuleSchema>): FaultRule {
  const rule = FaultRuleSchema.parse(json);
  return {
    ...(rule.match !== undefined ? { match: new RegExp(rule.match, rule.flags ?? '') } : {}),
    ...(rule.rate !== undefined ? { rate: rule.rate } : {}),
    ...(rule.times !== undefined ? { times: rule.times } : {}),
    fault: rule.fault,
  };
}

interface ActiveRule {
  pattern: RegExp | undefined;
  rate: number | undefined;
  remaining: number;
  fault: Fault;
}

/** Holds the rules and their counters; `pick` decides which faults hit one request. */
export class FaultScript {
  private rules: ActiveRule[] = [];
  private random: () => number;

  constructor(
    rules: FaultRule[] = [],
    private readonly seed = 1,
  ) {
    this.random = mulberry32(seed);
    this.set(rules);
  }

  set(rules: FaultRule[]): void {
    this.random = mulberry32(this.seed);
    this.rules = rules.map((rule) => ({
      pattern:
        rule.match === undefined
          ? undefined
          : typeof rule.match === 'string'
            ? new RegExp(rule.match)
            : rule.match,
      rate: rule.rate,
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
      fault: FaultSchema.parse(rule.fault),
    }));
  }

  pick(prompt: string): Fault[] {
    const picked: Fault[] = [];
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue;
      if (rule.pattern && !testPattern(rule.pattern, prompt)) continue;
      if (rule.rate !== undefined && this.random() >= rule.rate) continue;
      rule.remaining -= 1;
      picked.push(rule.fault);
    }
    return picked;
  }
}

function testPattern(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** Small seeded generator: the same seed gives the same fault decisions. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MALFORMED = 'I have read the document. It covers several subjects, summarised in prose here.';

/** Applies `malformed` and `truncate` to a prose answer. */
export function distortProse(
  prose: string,
  faults: Fault[],
): { content: string; truncated: boolean } {
  let content = faults.some((fault) => fault.kind === 'malformed') ? MALFORMED : prose;
  let truncated = false;
  for (const fault of faults) {
    if (fault.kind === 'truncate') {
      content = content.slice(0, Math.floor(content.length * fault.fraction));
      truncated = true;
    }
  }
  return { content, truncated };
}

/** Applies the content faults to a JSON answer; returns the text and whether it was cut. */
export function distortAnswer(
  answer: Record<string, unknown>,
  faults: Fault[],
): { content: string; truncated: boolean } {
  const kinds = new Set(faults.map((fault) => fault.kind));
  if (kinds.has('malformed')) return { content: MALFORMED, truncated: false };
  let content = kinds.has('broken-json') ? looseJson(answer) : JSON.stringify(answer, null, 2);
  let truncated = false;
  for (const fault of faults) {
    if (fault.kind === 'truncate') {
      content = content.slice(0, Math.floor(content.length * fault.fraction));
      truncated = true;
    }
  }
  if (kinds.has('fence')) content = `\`\`\`json\n${content}\n\`\`\``;
  if (kinds.has('think')) {
    content = `<think>\nThe user wants JSON. {"draft": true} Let me read the text first.\n</think>\n${content}`;
  }
  return { content, truncated };
}

/** Unquoted keys and trailing commas, as careless models write. */
function looseJson(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${looseJson(item, inner)},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(
      ([key, item]) => `${inner}${key}: ${looseJson(item, inner)},`,
    );
    return `{\n${entries.join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}
