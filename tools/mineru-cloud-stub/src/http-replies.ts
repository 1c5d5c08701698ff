/** Answers in the shapes the real services use: MinerU's JSON envelope, object storage's XML. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CODES, messageOf } from './error-codes';

function traceId(): string {
  return randomBytes(16).toString('hex');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** `{code: 0, msg: "ok", trace_id, data}` */
export function sendData(res: ServerResponse, data: unknown): void {
  sendJson(res, 200, { code: 0, msg: 'ok', trace_id: traceId(), data });
}

/** A business error: MinerU answers these with HTTP 200 and the code in the body. */
export function sendCode(res: ServerResponse, code: number, msg = messageOf(code), status = 200) {
  sendJson(res, status, { code, msg, trace_id: traceId(), data: null });
}

/** The gateway's token error: another envelope, and HTTP 401. */
export function sendAuthFailure(res: ServerResponse): void {
  sendJson(res, 401, {
    success: false,
    msgCode: ERROR_CODES.tokenInvalid,
    msg: 'user authenticate failed',
    data: null,
  });
}

/** Object storage's error document (the upload and download hosts are OSS and a CDN). */
export function sendStorageError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
): void {
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error>\n  <Code>${code}</Code>\n` +
    `  <Message>${message}</Message>\n  <RequestId>${traceId().slice(0, 24).toUpperCase()}</RequestId>\n</Error>\n`;
  res.writeHead(status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(xml),
  });
  res.end(xml);
}

const MAX_JSON_BYTES = 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, MAX_JSON_BYTES);
  if (body.overLimit) throw new Error('request body too large');
  return JSON.parse(body.bytes.toString('utf8')) as unknown;
}

/** Reads the whole body but keeps at most `limit` bytes; `size` counts everything sent. */
export async function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ bytes: Buffer; size: number; overLimit: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    if (size + part.length <= limit) parts.push(part);
    size += part.length;
  }
  return { bytes: Buffer.concat(parts), size, overLimit: size > limit };
}
