import { createLogger } from '@pelita/kit';
import type { DocumentRecord } from '../../src/documents/document-repository';
import { createPdfLinks, linkExpiry, needsRenewal } from '../../src/documents/pdf-links';

/** A link as the ocr-service signs it (S3 Signature V4, query form), signed at 12:00:00 UTC. */
const signed = (seconds: number) =>
  'http://minio:9000/ocr/ocr-documents/t.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
  `&X-Amz-Credential=key%2F20261128%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261128T120000Z` +
  `&X-Amz-Expires=${seconds}&X-Amz-SignedHeaders=host&X-Amz-Signature=abc`;
const NOON = Date.UTC(2026, 10, 28, 12);
const HOUR = 3600 * 1000;

describe('linkExpiry and needsRenewal', () => {
  it('reads when a presigned link expires, and says nothing of a plain one', () => {
    expect(linkExpiry(signed(3600))).toEqual({ expiresAt: NOON + HOUR, lifetimeMs: HOUR });
    expect(linkExpiry('http://minio:9000/ocr/ocr-documents/t.pdf')).toBeUndefined();
    expect(linkExpiry('not a url')).toBeUndefined();
    expect(needsRenewal('http://minio:9000/ocr/ocr-documents/t.pdf', NOON + 1000 * HOUR)).toBe(
      false,
    );
  });

  it('renews in the last half of a short lifetime, and in the last day of a week', () => {
    expect(needsRenewal(signed(3600), NOON + 0.4 * HOUR)).toBe(false);
    expect(needsRenewal(signed(3600), NOON + 0.6 * HOUR)).toBe(true);
    const week = 7 * 24 * 3600;
    expect(needsRenewal(signed(week), NOON + 5 * 24 * HOUR)).toBe(false);
    expect(needsRenewal(signed(week), NOON + 6.5 * 24 * HOUR)).toBe(true);
    expect(needsRenewal(signed(week), NOON + 30 * 24 * HOUR)).toBe(true);
  });
});

describe('createPdfLinks', () => {
  const expired = { id: 'd', task_id: 't', pdf_url: signed(60) } as DocumentRecord;
  const logger = createLogger({ name: 'test', level: 'silent' });

  it('hands out and stores a fresh link for an expired one', async () => {
    const stored: string[][] = [];
    const links = createPdfLinks({
      ocr: { pdfLink: (taskId) => Promise.resolve(`fresh-of-${taskId}`) },
      store: (id, taskId, url) => Promise.resolve(void stored.push([id, taskId, url])),
      logger,
    });
    expect((await links.live(expired)).pdf_url).toBe('fresh-of-t');
    expect(stored).toEqual([['d', 't', 'fresh-of-t']]);
    const page = await links.page({ rows: [expired], total: 1 });
    expect(page).toEqual({ rows: [{ ...expired, pdf_url: 'fresh-of-t' }], total: 1 });
  });

  it('renews a page of expired links four at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const links = createPdfLinks({
      ocr: {
        pdfLink: async (taskId) => {
          most = Math.max(most, ++inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight -= 1;
          return `fresh-of-${taskId}`;
        },
      },
      store: () => Promise.resolve(),
      logger,
    });
    const rows = Array.from({ length: 10 }, (_, i) => ({
      ...expired,
      id: `d${i}`,
      task_id: `t${i}`,
    }));
    const page = await links.page({ rows, total: 10 });
    expect(page.rows.map((row) => row.pdf_url)).toEqual(
      rows.map((row) => `fresh-of-${row.task_id}`),
    );
    expect(most).toBe(4);
  });

  it('hands out the stored link when the ocr-service fails or has no PDF, storing nothing', async () => {
    const store = jest.fn(() => Promise.resolve());
    const down = createPdfLinks({
      ocr: { pdfLink: () => Promise.reject(new Error('connection refused')) },
      store,
      logger,
    });
    expect(await down.live(expired)).toBe(expired);
    const gone = createPdfLinks({ ocr: { pdfLink: () => Promise.resolve(null) }, store, logger });
    expect(await gone.live(expired)).toBe(expired);
    expect(store).not.toHaveBeenCalled();
  });
});
