/** The control API for a double running as a process: statistics, faults, options, hosted files. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { OptionsPatchSchema } from '../api-schemas';
import { FaultRuleSchema, ruleFromJson } from '../faults';
import { readBody, readJson, sendJson } from '../http-replies';
import type { StubContext } from '../stub-context';

export async function control(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  hostFile: (name: string, bytes: Buffer) => string,
): Promise<void> {
  if (req.method === 'GET' && path === '/_stub/stats')
    return sendJson(res, 200, ctx.registry.stats());
  if (req.method === 'POST' && path === '/_stub/reset') {
    ctx.registry.resetStats();
    return sendJson(res, 200, { reset: true });
  }
  if (req.method === 'PUT' && path === '/_stub/faults') {
    const body = z
      .object({ faults: z.array(FaultRuleSchema) })
      .safeParse(await readJson(req).catch(() => undefined));
    if (!body.success) return badRequest(res, body.error.message);
    ctx.script.set(body.data.faults.map(ruleFromJson));
    return sendJson(res, 200, { faults: body.data.faults.length });
  }
  if (req.method === 'PUT' && path === '/_stub/options') {
    const body = OptionsPatchSchema.safeParse(await readJson(req).catch(() => undefined));
    if (!body.success) return badRequest(res, body.error.message);
    Object.assign(ctx.runtime, body.data);
    return sendJson(res, 200, ctx.runtime);
  }
  const file = /^\/_stub\/files\/([^/]+)$/.exec(path)?.[1];
  if (req.method === 'PUT' && file) {
    const body = await readBody(req, ctx.runtime.maxFileBytes);
    if (body.overLimit) return sendJson(res, 413, { error: { message: 'file too large' } });
    return sendJson(res, 200, { url: hostFile(decodeURIComponent(file), body.bytes) });
  }
  sendJson(res, 404, { error: { message: `no control route ${req.method} ${path}` } });
}

function badRequest(res: ServerResponse, message: string): void {
  sendJson(res, 400, { error: { message } });
}
