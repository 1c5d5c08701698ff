/**
 * Deletes an install's objects from a bucket: pages of at most 1,000 keys (ListObjectsV2), each
 * removed with one DeleteObjects (its limit is 1,000 keys), until the listing is empty.
 */
import {
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';

export interface ObjectServer {
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  accessKey: string;
  secretKey: string;
}

const PAGE = 1000;

/** Deletes every object under `prefix` ('' for the whole bucket); answers how many. */
export async function deleteObjectsUnder(
  server: ObjectServer,
  bucket: string,
  prefix: string,
): Promise<number> {
  const client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: server.forcePathStyle,
    credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
  });
  try {
    let deleted = 0;
    for (;;) {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, MaxKeys: PAGE }),
        );
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchBucket') return deleted;
        throw err;
      }
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
      if (keys.length === 0) return deleted;
      const result = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const [failed] = result.Errors ?? [];
      if (failed) {
        throw new Error(
          `${result.Errors?.length} objects not deleted, e.g. ${failed.Key}: ${failed.Code ?? ''} ${failed.Message ?? ''}`,
        );
      }
      deleted += keys.length;
    }
  } finally {
    client.destroy();
  }
}
