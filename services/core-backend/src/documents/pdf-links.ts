/**
 * A document's `pdf_url` that works when it is handed out. The ocr-service signs the link to the
 * searchable PDF (S3 Signature V4, query form) for `OUTPUT_URL_TTL_SECONDS`, and the follower
 * stores the link it read when the document was done: without renewal every document's link
 * would stop working a week later. A link close to its end (under half its lifetime, at most a
 * day, left) is replaced by a fresh one from the ocr-service before it goes out, and stored for
 * the reads after. A link without expiry (public documents) goes out as it is; so does the
 * stored one when the ocr-service cannot be asked: reading a document never fails for its link.
 */
import { createConcurrencyLimit, type Logger } from '@pelita/kit';
import type { DocumentRecord } from './document-repository';
import type { OcrClient } from './ocr-client';

const MAX_MARGIN_MS = 24 * 3600 * 1000;
/**
 * Renewals asked of the ocr-service at once, by this process: after a quiet week the first list
 * finds every link on its page near its end.
 */
const RENEWALS_AT_ONCE = 4;

/** When a presigned link stops working, and how long it was signed for; undefined: never. */
export function linkExpiry(url: string): { expiresAt: number; lifetimeMs: number } | undefined {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const signed = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(
    params.get('X-Amz-Date') ?? '',
  );
  const seconds = Number(params.get('X-Amz-Expires'));
  if (!signed || !Number.isInteger(seconds) || seconds <= 0) return undefined;
  const [year = 0, month = 1, day, hour, minute, second] = signed.slice(1).map(Number);
  const signedAt = Date.UTC(year, month - 1, day, hour, minute, second);
  return { expiresAt: signedAt + seconds * 1000, lifetimeMs: seconds * 1000 };
}

/** True when `url` expires within half its lifetime (at most a day) of `now`. */
export function needsRenewal(url: string, now: number): boolean {
  const expiry = linkExpiry(url);
  if (!expiry) return false;
  return expiry.expiresAt - now < Math.min(MAX_MARGIN_MS, expiry.lifetimeMs / 2);
}

export interface PdfLinksDeps {
  ocr: Pick<OcrClient, 'pdfLink'> | undefined;
  /** Stores the renewed link while the document is still the task's (not re-processed since). */
  store: (documentId: string, taskId: string, pdfUrl: string) => Promise<void>;
  logger: Logger;
}

export function createPdfLinks(deps: PdfLinksDeps) {
  const renewals = createConcurrencyLimit(RENEWALS_AT_ONCE);
  async function live(document: DocumentRecord): Promise<DocumentRecord> {
    const { ocr } = deps;
    if (!ocr || !document.pdf_url || !needsRenewal(document.pdf_url, Date.now())) return document;
    try {
      const fresh = await renewals.run(() => ocr.pdfLink(document.task_id));
      if (!fresh) return document;
      await deps.store(document.id, document.task_id, fresh);
      return { ...document, pdf_url: fresh };
    } catch (err) {
      deps.logger.warn(
        { err, documentId: document.id },
        'could not renew the PDF link of a document; the stored one goes out',
      );
      return document;
    }
  }
  return {
    live,
    /** A page of documents, each with a live link (renewed side by side, a few at a time). */
    page: async <P extends { rows: DocumentRecord[] }>(page: P): Promise<P> => ({
      ...page,
      rows: await Promise.all(page.rows.map(live)),
    }),
  };
}
