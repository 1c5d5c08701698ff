/**
 * The hosts around the API: object storage taking presigned uploads, the CDN serving result
 * archives, and the files the double hosts for URL tasks.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CODES, messageOf } from '../error-codes';
import { readBody, sendStorageError } from '../http-replies';
import type { StubContext } from '../stub-context';

const STORAGE_CODE: Record<number, string> = {
  403: 'AccessDenied',
  404: 'NoSuchKey',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export async function upload(
  ctx: StubContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { registry } = ctx;
  const refuse = (status: number, code: string, message: string) => {
    req.resume();
    registry.counters.uploadsRejected += 1;
    sendStorageError(res, status, code, message);
  };
  const task = registry.byUploadKey(url.pathname.split('/').pop() ?? '');
  const check = ctx.signer.check(url);
  // A presigned URL signs no content type: a client that sends one breaks the signature.
  const contentType = req.headers['content-type'];
  if (!task || check === 'bad-signature' || (contentType !== undefined && contentType !== '')) {
    return refuse(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  }
  if (check === 'expired') return refuse(403, 'AccessDenied', 'Request has expired.');
  const rejected = ctx.script
    .pick('upload', [task.fileName])
    .find((fault) => fault.kind === 'upload-rejected');
  if (rejected) {
    const code = STORAGE_CODE[rejected.status] ?? 'InternalError';
    return refuse(rejected.status, code, `Scripted fault ${rejected.status}`);
  }

  const body = await readBody(req, ctx.runtime.maxFileBytes);
  registry.counters.uploads += 1;
  // A repeated PUT is stored, as object storage would, but starts nothing new.
  if (task.state === 'waiting-file') {
    if (body.overLimit) {
      task.state = 'failed';
      task.uploadedBytes = body.size;
      task.errCode = ERROR_CODES.fileTooLarge;
      task.errMsg = messageOf(ERROR_CODES.fileTooLarge);
    } else {
      ctx.processor.start(task, body.bytes, ctx.script.pick('process', [task.fileName]));
    }
  }
  const etag = createHash('md5').update(body.bytes).digest('hex').toUpperCase();
  res.writeHead(200, { etag: `"${etag}"`, 'content-length': 0 });
  res.end();
}

export function downloadArchive(ctx: StubContext, res: ServerResponse, path: string): void {
  const zipId = /^\/cdn\/pdf\/([^/]+)\.zip$/.exec(path)?.[1];
  const task = zipId ? ctx.registry.byZipId(zipId) : undefined;
  if (!task?.zip) return noSuchKey(res);
  ctx.registry.counters.downloads += 1;
  const faults = ctx.script.pick('download', [task.fileName]);
  const error = faults.find((fault) => fault.kind === 'download-error');
  if (error) {
    const code = STORAGE_CODE[error.status] ?? 'InternalError';
    return sendStorageError(res, error.status, code, `Scripted fault ${error.status}`);
  }
  res.writeHead(200, { 'content-type': 'application/zip', 'content-length': task.zip.length });
  if (faults.some((fault) => fault.kind === 'download-stall')) {
    // Half the promised bytes, then silence: only the client's time-out (or close) ends it.
    res.write(task.zip.subarray(0, Math.floor(task.zip.length / 2)));
    return;
  }
  res.end(task.zip);
}

export function hostedFile(ctx: StubContext, res: ServerResponse, path: string): void {
  const bytes = ctx.registry.hostedFile(decodeURIComponent(path.slice('/files/'.length)));
  if (!bytes) return noSuchKey(res);
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': bytes.length,
  });
  res.end(bytes);
}

function noSuchKey(res: ServerResponse): void {
  sendStorageError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
}
