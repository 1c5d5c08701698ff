/**
 * The OCR documents in object storage: uploads staged for the workers (`ocr-uploads/{task_id}/…`:
 * an API replica takes the file, any worker in any pod reads it), and the PDF of a task with a
 * local file (`ocr-documents/{task_id}.pdf`, the seed's name) with its public URL.
 */
import {
  createObjectStore,
  type ObjectStore,
  type ObjectStoreSettings,
} from '@pelita/kit/object-store';

export interface DocumentStoreSettings extends ObjectStoreSettings {
  S3_BUCKET: string;
  /** Base of the public URLs (a CDN or the bucket's public address); `{endpoint}/{bucket}` when unset. */
  S3_PUBLIC_URL?: string | undefined;
}

export interface DocumentStore extends ObjectStore {
  /** The public URL of `key` (the seed's `output_pdf_file`). */
  publicUrl(key: string): string;
}

export const stagedUploadKey = (taskId: string, index: number) => `ocr-uploads/${taskId}/${index}`;
export const documentPdfKey = (taskId: string) => `ocr-documents/${taskId}.pdf`;

export function createDocumentStore(settings: DocumentStoreSettings): DocumentStore {
  const bucket = settings.S3_BUCKET;
  const publicBase = (
    settings.S3_PUBLIC_URL ??
    (settings.S3_ENDPOINT
      ? `${settings.S3_ENDPOINT.replace(/\/+$/, '')}/${bucket}`
      : `https://${bucket}.s3.${settings.S3_REGION}.amazonaws.com`)
  ).replace(/\/+$/, '');
  return {
    ...createObjectStore(settings, bucket),
    publicUrl: (key) => `${publicBase}/${key.split('/').map(encodeURIComponent).join('/')}`,
  };
}
