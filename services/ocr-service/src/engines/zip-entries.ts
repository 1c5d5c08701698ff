/**
 * Reads the files of a ZIP archive (MinerU's result archive) from memory: the central directory
 * names each entry and where its data starts; stored and deflated entries are supported, which
 * is what archivers write. No ZIP64 and no encryption: an archive that needs them is refused.
 * An archive is an engine's answer, not to be trusted: it may list at most `maxEntries` entries
 * and the files read may inflate to `maxInflatedBytes` in all (a zip bomb is refused, not
 * inflated: a megabyte can hold a gigabyte).
 */
import { inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

export class BadArchiveError extends Error {
  constructor(message: string) {
    super(`the result archive is unreadable: ${message}`);
    this.name = 'BadArchiveError';
  }
}

/** An archive beyond the limits: too many entries, or files that inflate to too much. */
export class ArchiveTooLargeError extends Error {
  constructor(message: string) {
    super(`the result archive is too large: ${message}`);
    this.name = 'ArchiveTooLargeError';
  }
}

export interface ZipLimits {
  maxEntries: number;
  /** Bytes the files read may inflate to, all together. */
  maxInflatedBytes: number;
  /** Which files to read (default all); the others are neither inflated nor counted. */
  wanted?: (name: string) => boolean;
}

/** Every file of the archive by its name (directories left out). */
export function zipEntries(archive: Buffer, limits: ZipLimits): Map<string, Buffer> {
  // The end record sits in the last 22 bytes plus a comment of at most 64 KiB.
  let end = -1;
  for (let at = archive.length - 22; at >= Math.max(0, archive.length - 22 - 0xffff); at -= 1) {
    if (archive.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end === -1) throw new BadArchiveError('no end of central directory');
  const count = archive.readUInt16LE(end + 10);
  if (count > limits.maxEntries) {
    throw new ArchiveTooLargeError(`${count} entries, more than ${limits.maxEntries}`);
  }
  let inflated = 0;
  let at = archive.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i += 1) {
    if (at + 46 > archive.length || archive.readUInt32LE(at) !== DIRECTORY_ENTRY) {
      throw new BadArchiveError(`directory entry ${i} is damaged`);
    }
    const flags = archive.readUInt16LE(at + 8);
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const declaredSize = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localOffset = archive.readUInt32LE(at + 42);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/') || (limits.wanted && !limits.wanted(name))) continue;
    const room = limits.maxInflatedBytes - inflated;
    const tooLarge = () =>
      new ArchiveTooLargeError(`its files inflate to more than ${limits.maxInflatedBytes} bytes`);
    if (declaredSize > room) throw tooLarge();
    if (flags & 0x1) throw new BadArchiveError(`${name} is encrypted`);
    if (localOffset + 30 > archive.length || archive.readUInt32LE(localOffset) !== LOCAL_HEADER) {
      throw new BadArchiveError(`${name} has no local header`);
    }
    const dataStart =
      localOffset +
      30 +
      archive.readUInt16LE(localOffset + 26) +
      archive.readUInt16LE(localOffset + 28);
    const data = archive.subarray(dataStart, dataStart + compressedSize);
    if (data.length !== compressedSize) throw new BadArchiveError(`${name} is cut short`);
    let file: Buffer;
    if (method === 0) file = data;
    else if (method === 8) {
      try {
        // The declared size may lie: inflation itself stops at the room left.
        file = inflateRawSync(data, { maxOutputLength: Math.max(1, room) });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
        throw new BadArchiveError(`${name}: ${(err as Error).message}`);
      }
    } else throw new BadArchiveError(`${name} uses compression method ${method}`);
    if (file.length > room) throw tooLarge();
    inflated += file.length;
    files.set(name, file);
  }
  return files;
}
