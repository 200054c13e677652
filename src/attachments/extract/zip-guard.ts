// Reads a DOCX's ZIP central directory before any parser inflates it: a few hundred kilobytes can
// declare gigabytes of XML (a zip bomb), and a parser would try to hold it all as one string.
import { inflateRawSync } from 'node:zlib';
import { formatCount } from './char-budget.ts';
import { ExtractFailure } from './failure.ts';

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const NOT_A_DOCX = 'it is not a valid Word document';
const MAX_ENTRIES = 10_000;
// Deflate tops out near 1032:1; real DOCX XML rarely passes 100:1. Small parts may be anything.
const MAX_RATIO = 200;
const RATIO_FLOOR_BYTES = 1024 * 1024;

function megabytes(n: number): string {
  return `${formatCount(Math.ceil(n / 1024 / 1024))} MB`;
}

function findEndOfCentralDirectory(buf: Buffer): number {
  const min = Math.max(0, buf.length - 22 - 0xffff);
  for (let at = buf.length - 22; at >= min; at--) {
    if (buf.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw new ExtractFailure('corrupt', NOT_A_DOCX);
}

function centralDirectory(buf: Buffer): { count: number; offset: number } {
  const eocd = findEndOfCentralDirectory(buf);
  let count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  if (
    (count === 0xffff || offset === 0xffffffff) &&
    eocd >= 20 &&
    buf.readUInt32LE(eocd - 20) === 0x07064b50
  ) {
    const zip64 = Number(buf.readBigUInt64LE(eocd - 12));
    if (zip64 + 56 > buf.length || buf.readUInt32LE(zip64) !== 0x06064b50)
      throw new ExtractFailure('corrupt', NOT_A_DOCX);
    count = Number(buf.readBigUInt64LE(zip64 + 32));
    offset = Number(buf.readBigUInt64LE(zip64 + 48));
  }
  return { count, offset };
}

/** ZIP64 keeps the real sizes in an extra field when the 32-bit ones are 0xFFFFFFFF. */
function applyZip64(buf: Buffer, extraStart: number, extraEnd: number, entry: ZipEntry): void {
  for (let at = extraStart; at + 4 <= extraEnd; ) {
    const id = buf.readUInt16LE(at);
    const len = buf.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        const v = field + 8 <= at + 4 + len ? Number(buf.readBigUInt64LE(field)) : 0;
        field += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localOffset === 0xffffffff) entry.localOffset = next();
      return;
    }
    at += 4 + len;
  }
}

export function readZipEntries(bytes: Uint8Array): ZipEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 22 || buf.readUInt32LE(0) !== 0x04034b50)
    throw new ExtractFailure('corrupt', NOT_A_DOCX);
  const { count, offset } = centralDirectory(buf);
  if (count > MAX_ENTRIES)
    throw new ExtractFailure('too_complex', `it has ${formatCount(count)} parts`);
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== 0x02014b50)
      throw new ExtractFailure('corrupt', NOT_A_DOCX);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: buf.toString('utf8', at + 46, at + 46 + nameLen),
      flags: buf.readUInt16LE(at + 8),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      localOffset: buf.readUInt32LE(at + 42),
    };
    applyZip64(buf, at + 46 + nameLen, at + 46 + nameLen + extraLen, entry);
    entries.push(entry);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Inflates one part with a hard cap, to catch a central directory that understates a size. */
function checkActualSize(buf: Buffer, entry: ZipEntry): void {
  const at = entry.localOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== 0x04034b50)
    throw new ExtractFailure('corrupt', NOT_A_DOCX);
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (data.length < entry.compressedSize) throw new ExtractFailure('corrupt', 'it is cut off');
  if (entry.method === 0) return;
  try {
    inflateRawSync(data, { maxOutputLength: Math.max(1, entry.size) + 1 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ExtractFailure('too_complex', 'its parts are larger than the file says', {
        cause: err,
      });
    }
    throw new ExtractFailure('corrupt', '', { cause: err });
  }
}

/**
 * Refuses a DOCX that would unpack to more than `maxUnzippedBytes`, that has a part with an absurd
 * compression ratio, or that is not a DOCX at all. Parts the converter will parse (XML) are also
 * inflated once with a cap, since only the central directory's word says how big they are.
 */
export function checkDocxZip(bytes: Uint8Array, maxUnzippedBytes: number): ZipEntry[] {
  const entries = readZipEntries(bytes);
  let total = 0;
  for (const e of entries) {
    total += e.size;
    if (e.flags & 0x1) throw new ExtractFailure('encrypted');
    if (e.method !== 0 && e.method !== 8)
      throw new ExtractFailure('corrupt', 'it uses a compression method I cannot read');
  }
  if (total > maxUnzippedBytes) {
    throw new ExtractFailure(
      'too_complex',
      `it unpacks to ${megabytes(total)}; the limit is ${megabytes(maxUnzippedBytes)}`,
    );
  }
  for (const e of entries) {
    const ratio = e.size / Math.max(1, e.compressedSize);
    if (e.size > RATIO_FLOOR_BYTES && ratio > MAX_RATIO) {
      throw new ExtractFailure(
        'too_complex',
        `a part of it expands ${formatCount(Math.round(ratio))} times when unpacked`,
      );
    }
  }
  if (!entries.some((e) => e.name === 'word/document.xml' || e.name === '_rels/.rels')) {
    throw new ExtractFailure('corrupt', 'it has no document text part');
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const e of entries) if (/\.(xml|rels)$/i.test(e.name)) checkActualSize(buf, e);
  return entries;
}
