/** What an uploaded file is, from its first bytes (the name may lie). */
export type FileKind = 'pdf' | 'png' | 'jpeg' | 'office' | 'empty' | 'unknown';

export function sniffFileKind(bytes: Buffer): FileKind {
  if (bytes.length === 0) return 'empty';
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'png';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  // docx/pptx are ZIP containers, doc/ppt OLE compound files.
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return 'office';
  if (bytes.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) return 'office';
  return 'unknown';
}
