/**
 * What a document file is (seed 002 A's conversion rules): the seed's office and image
 * extensions, checked against the file's first bytes where a format has a signature (an
 * extension is the client's word). The OCR API refuses what this refuses before queueing; the
 * office converter picks its conversion by it.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';

export type InputKind = 'pdf' | 'office' | 'png' | 'jpeg' | 'image';

/** The seed's lists, plus OpenDocument and RTF, which LibreOffice reads natively. */
const OFFICE_EXTENSIONS = [
  'docx',
  'doc',
  'pptx',
  'ppt',
  'xlsx',
  'xls',
  'csv',
  'odt',
  'ods',
  'odp',
  'rtf',
];
const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'bmp', 'gif', 'tiff', 'tif', 'webp'];

export class UnsupportedInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedInputError';
  }
}

const startsWith = (head: Buffer, bytes: number[], offset = 0) =>
  bytes.every((byte, i) => head[offset + i] === byte);

/** The kind of `path`, uploaded as `name`; throws UnsupportedInputError for anything else. */
export async function inputKind(path: string, name: string): Promise<InputKind> {
  const extension = extname(name).slice(1).toLowerCase();
  const handle = await open(path, 'r');
  const head = Buffer.alloc(16);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  if (bytesRead === 0) throw new UnsupportedInputError(`${name} is empty`);
  if (head.subarray(0, bytesRead).includes('%PDF-')) return 'pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (IMAGE_EXTENSIONS.includes(extension)) {
    const signed =
      startsWith(head, [0x47, 0x49, 0x46, 0x38]) || // GIF
      startsWith(head, [0x42, 0x4d]) || // BMP
      startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || // TIFF
      startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]) ||
      startsWith(head, [0x57, 0x45, 0x42, 0x50], 8); // WEBP
    if (!signed) throw new UnsupportedInputError(`${name} is not the image its name says`);
    return 'image';
  }
  if (extension === 'pdf') throw new UnsupportedInputError(`${name} is not a PDF`);
  if (OFFICE_EXTENSIONS.includes(extension)) return 'office';
  throw new UnsupportedInputError(
    `Unsupported file type: ${name} (office: ${OFFICE_EXTENSIONS.join(', ')}; images: ${IMAGE_EXTENSIONS.join(', ')}; pdf)`,
  );
}
