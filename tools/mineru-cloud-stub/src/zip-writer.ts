/**
 * A minimal ZIP writer (PKWARE APPNOTE 4.3): local headers, data, central directory, end record.
 * Deflate by default, as MinerU's archives are; `store` keeps the bytes as they are. No ZIP64:
 * the double's archives stay far below 4 GiB.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, `/`-separated (`images/a.png`). */
  name: string;
  data: Buffer;
}

/** An entry whose raw deflate stream is already made (too large to hold inflated: a zip bomb). */
export interface DeflatedZipEntry {
  name: string;
  deflated: Buffer;
  /** The inflated size and CRC-32, as the headers must state them. */
  size: number;
  crc: number;
}

export type ZipMethod = 'deflate' | 'store';

const METHOD_CODE: Record<ZipMethod, number> = { store: 0, deflate: 8 };
/** Bit 11: names are UTF-8. */
const UTF8_FLAG = 0x0800;
/** 1980-01-01 00:00 in MS-DOS date/time: fixed, so the same input gives the same archive. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export function zipArchive(
  entries: ReadonlyArray<ZipEntry | DeflatedZipEntry>,
  method: ZipMethod = 'deflate',
): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const body =
      'deflated' in entry
        ? entry.deflated
        : method === 'deflate'
          ? deflateRawSync(entry.data)
          : entry.data;
    const fields =
      'deflated' in entry
        ? { method: METHOD_CODE.deflate, crc: entry.crc, compressed: body.length, size: entry.size }
        : {
            method: METHOD_CODE[method],
            crc: crc32(entry.data),
            compressed: body.length,
            size: entry.data.length,
          };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeCommon(local, 4, fields, name.length);
    parts.push(local, name, body);

    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    // Made by Unix, version 2.0: unzip then trusts the UTF-8 flag instead of reading names as
    // MS-DOS code page 437, and extracts files as -rw-r--r--.
    record.writeUInt16LE((3 << 8) | 20, 4);
    writeCommon(record, 6, fields, name.length);
    // extra length, comment length, disk, internal attributes: zero
    record.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/** Version needed, flags, method, time, date, CRC, sizes and name length: shared by both headers. */
function writeCommon(
  header: Buffer,
  at: number,
  fields: { method: number; crc: number; compressed: number; size: number },
  nameLength: number,
): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(UTF8_FLAG, at + 2);
  header.writeUInt16LE(fields.method, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(fields.crc, at + 10);
  header.writeUInt32LE(fields.compressed, at + 14);
  header.writeUInt32LE(fields.size, at + 18);
  header.writeUInt16LE(nameLength, at + 22);
}
