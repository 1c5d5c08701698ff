/**
 * Scriptable faults. A rule picks files by a pattern over the file name (all files without one)
 * and says what goes wrong; `times` limits it to the first N occasions it applies. Each fault
 * applies at one moment: `upload-rejected` at every PUT, `status-error` at every poll of a batch
 * or task holding a matching file, `download-*` at every download of its archive, the others
 * once, when the file's processing starts.
 */
import { z } from 'zod';

export const FaultSchema = z.discriminatedUnion('kind', [
  /** The file stays `running`; its progress stops one page short of the end. */
  z.object({ kind: z.literal('never-finish') }),
  /** The file ends `failed` with this code and message, after `atPage` pages. */
  z.object({
    kind: z.literal('fail'),
    code: z.number().int().default(-60010),
    message: z.string().optional(),
    atPage: z.number().int().min(0).default(0),
  }),
  /** Every page takes `pageMs` (instead of the configured per-page latency). */
  z.object({ kind: z.literal('slow'), pageMs: z.number().int().min(0) }),
  /** The PUT of the file answers this status with an object-storage error; nothing is stored. */
  z.object({
    kind: z.literal('upload-rejected'),
    status: z.union([z.literal(403), z.literal(500), z.literal(503)]).default(403),
  }),
  /** The result archive is corrupt: cut in half, or not a ZIP at all. */
  z.object({
    kind: z.literal('bad-zip'),
    mode: z.enum(['truncated', 'not-zip']).default('truncated'),
  }),
  /**
   * The result archive is a zip bomb: its content list inflates to `inflatedBytes` (`deep`), or
   * it holds `entries` files in all (`wide`, the most a ZIP without ZIP64 can list by default).
   */
  z.object({
    kind: z.literal('zip-bomb'),
    shape: z.enum(['deep', 'wide']).default('deep'),
    inflatedBytes: z
      .number()
      .int()
      .min(2)
      .max(0xffffffff)
      .default(1024 * 1024 * 1024),
    entries: z.number().int().min(1).max(0xffff).default(0xffff),
  }),
  /** The archive download answers this status (the CDN's XML error) instead of the archive. */
  z.object({
    kind: z.literal('download-error'),
    status: z.number().int().min(400).max(599).default(500),
  }),
  /** The archive download sends its headers and half the bytes, then nothing until the client leaves. */
  z.object({ kind: z.literal('download-stall') }),
  /** The poll answers this HTTP status (with MinerU's error body) instead of the state. */
  z.object({
    kind: z.literal('status-error'),
    status: z.number().int().min(400).max(599).default(500),
  }),
]);
export type Fault = z.output<typeof FaultSchema>;
export type FaultInput = z.input<typeof FaultSchema>;
export type FaultKind = Fault['kind'];

/** When a fault applies. */
export type FaultMoment = 'upload' | 'poll' | 'process' | 'download';

const MOMENT: Record<FaultKind, FaultMoment> = {
  'upload-rejected': 'upload',
  'status-error': 'poll',
  'download-error': 'download',
  'download-stall': 'download',
  'never-finish': 'process',
  fail: 'process',
  slow: 'process',
  'bad-zip': 'process',
  'zip-bomb': 'process',
};

/** A rule as sent over the control API: the pattern is a regular expression source. */
export const FaultRuleSchema = z.object({
  match: z.string().optional(),
  flags: z
    .string()
    .regex(/^[imsu]*$/)
    .optional(),
  times: z.number().int().min(0).optional(),
  fault: FaultSchema,
});

export interface FaultRule {
  /** Tested against the file name (`files[].name` of the batch, or the URL's last segment). */
  match?: string | RegExp;
  /** The rule applies the first `times` times it picks something, then never again. */
  times?: number;
  fault: FaultInput;
}

export function ruleFromJson(json: z.input<typeof FaultRuleSchema>): FaultRule {
  const rule = FaultRuleSchema.parse(json);
  return {
    ...(rule.match !== undefined ? { match: new RegExp(rule.match, rule.flags ?? '') } : {}),
    ...(rule.times !== undefined ? { times: rule.times } : {}),
    fault: rule.fault,
  };
}

interface ActiveRule {
  pattern: RegExp | undefined;
  remaining: number;
  fault: Fault;
}

export class FaultScript {
  private rules: ActiveRule[] = [];

  constructor(rules: FaultRule[] = []) {
    this.set(rules);
  }

  set(rules: FaultRule[]): void {
    this.rules = rules.map((rule) => ({
      pattern:
        rule.match === undefined
          ? undefined
          : typeof rule.match === 'string'
            ? new RegExp(rule.match)
            : rule.match,
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
      fault: FaultSchema.parse(rule.fault),
    }));
  }

  /** The faults of this moment that hit any of `names`; each rule counts once per call. */
  pick(moment: FaultMoment, names: readonly string[]): Fault[] {
    const picked: Fault[] = [];
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || MOMENT[rule.fault.kind] !== moment) continue;
      if (rule.pattern && !names.some((name) => matches(rule.pattern as RegExp, name))) continue;
      rule.remaining -= 1;
      picked.push(rule.fault);
    }
    return picked;
  }
}

function matches(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}
