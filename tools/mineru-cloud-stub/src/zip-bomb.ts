/**
 * Result archives that are zip bombs, for the `zip-bomb` fault: `deep`, a content list that
 * inflates to far more than it weighs (a gigabyte from about a megabyte), or `wide`, a content
 * list among tens of thousands of empty files. Both are valid archives `unzip` accepts.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { zipArchive, type DeflatedZipEntry, type ZipEntry } from './zip-writer';

const CHUNK = 1024 * 1024;

/**
 * `[`, then spaces, then `]`: `size` bytes of valid JSON. The spaces are one compressed
 * megabyte repeated: each piece is flushed to a byte boundary and refers only to itself, so
 * the pieces concatenate into one deflate stream, which a final empty block ends.
 */
function deepContentList(name: string, size: number): DeflatedZipEntry {
  const spaces = size - 2;
  const whole = Math.floor(spaces / CHUNK);
  const rest = spaces % CHUNK;
  const piece = (data: Buffer) => deflateRawSync(data, { finishFlush: constants.Z_SYNC_FLUSH });
  const chunk = Buffer.alloc(CHUNK, ' ');
  const parts = [piece(Buffer.from('['))];
  const repeated = piece(chunk);
  let crc = crc32('[');
  for (let i = 0; i < whole; i += 1) {
    parts.push(repeated);
    crc = crc32(chunk, crc);
  }
  parts.push(deflateRawSync(Buffer.concat([chunk.subarray(0, rest), Buffer.from(']')])));
  crc = crc32(Buffer.concat([chunk.subarray(0, rest), Buffer.from(']')]), crc);
  return { name, deflated: Buffer.concat(parts), size, crc };
}

export function zipBomb(
  zipId: string,
  shape: { shape: 'deep'; inflatedBytes: number } | { shape: 'wide'; entries: number },
): Buffer {
  const listName = `${zipId}_content_list.json`;
  if (shape.shape === 'deep') return zipArchive([deepContentList(listName, shape.inflatedBytes)]);
  const entries: ZipEntry[] = [{ name: listName, data: Buffer.from('[]') }];
  for (let i = 1; i < shape.entries; i += 1) {
    entries.push({ name: `images/${i}.png`, data: Buffer.alloc(0) });
  }
  return zipArchive(entries, 'store');
}
