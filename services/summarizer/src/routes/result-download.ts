/** Sends a result as a JSON file download, written to the request's temporary directory. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { workspaceOf } from '@pelita/kit';
import type { Response } from 'express';
import { resultFileName, type ResultKind } from '../output-files';

export async function sendResultFile(
  res: Response,
  kind: ResultKind,
  body: unknown,
  at = new Date(),
): Promise<void> {
  const name = resultFileName(kind, at);
  const path = join(workspaceOf(res), name);
  await writeFile(path, JSON.stringify(body));
  await new Promise<void>((resolve, reject) => {
    res.download(path, name, (err?: Error) => (err ? reject(err) : resolve()));
  });
}
