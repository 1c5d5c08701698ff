/** The result archive MinerU serves at `full_zip_url`, and the ways the `bad-zip` fault breaks it. */
import { createHash } from 'node:crypto';
import type { ExtractedDocument } from './result-content';
import { zipArchive, type ZipEntry, type ZipMethod } from './zip-writer';

export interface ArchiveInput {
  zipId: string;
  document: ExtractedDocument;
  /** The uploaded file, kept as `<zipId>_origin.pdf` (PDFs) or under `images/` (images). */
  original: { bytes: Buffer; kind: 'pdf' | 'image'; extension: string };
}

/** `full.md`, `<zipId>_content_list.json`, `layout.json`, and the original or its image. */
function resultEntries({ zipId, document, original }: ArchiveInput): ZipEntry[] {
  const entries: ZipEntry[] = [
    { name: 'full.md', data: Buffer.from(document.markdown, 'utf8') },
    {
      name: `${zipId}_content_list.json`,
      data: Buffer.from(JSON.stringify(document.contentList, null, 2), 'utf8'),
    },
    { name: 'layout.json', data: Buffer.from(JSON.stringify(document.layout), 'utf8') },
  ];
  if (original.kind === 'pdf') {
    entries.push({ name: `${zipId}_origin.pdf`, data: original.bytes });
  } else {
    entries.push({ name: imagePath(original.bytes, original.extension), data: original.bytes });
  }
  return entries;
}

/** Images are named by their content hash, as MinerU names the images it extracts. */
export function imagePath(bytes: Buffer, extension: string): string {
  return `images/${createHash('sha256').update(bytes).digest('hex')}.${extension}`;
}

export type BadZipMode = 'truncated' | 'not-zip';

export function buildArchive(input: ArchiveInput, method: ZipMethod, damage?: BadZipMode): Buffer {
  const zip = zipArchive(resultEntries(input), method);
  if (damage === 'truncated') return zip.subarray(0, Math.floor(zip.length / 2));
  if (damage === 'not-zip') return Buffer.from('<html><body>502 Bad Gateway</body></html>\n');
  return zip;
}
