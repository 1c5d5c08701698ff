/** What an uploaded file is, from its first bytes (names and content types are the client's word). */
import { open } from 'node:fs/promises';

export type FileKind = 'pdf' | 'image';

export interface DetectedFile {
  kind: FileKind;
  mimeType: string;
}

const SIGNATURES: Array<{ mimeType: string; bytes: number[]; offset?: number }> = [
  { mimeType: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47] },
  { mimeType: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mimeType: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mimeType: 'image/bmp', bytes: [0x42, 0x4d] },
  { mimeType: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] }, // little-endian
  { mimeType: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] }, // big-endian
  { mimeType: 'image/webp', bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 }, // RIFF....WEBP
];

export async function detectFileKind(path: string): Promise<DetectedFile | undefined> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(16);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    // A PDF may start with a little junk before its header; readers accept that.
    if (bytesRead >= 5 && head.subarray(0, bytesRead).includes('%PDF-')) {
      return { kind: 'pdf', mimeType: 'application/pdf' };
    }
    const image = SIGNATURES.find(({ bytes, offset = 0 }) =>
      bytes.every((byte, i) => head[offset + i] === byte),
    );
    return image ? { kind: 'image', mimeType: image.mimeType } : undefined;
  } finally {
    await handle.close();
  }
}
