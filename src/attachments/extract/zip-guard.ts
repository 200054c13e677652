// Reads a DOCX's ZIP central directory (yauzl) before any parser inflates it: a few hundred
// kilobytes can declare gigabytes of XML (a zip bomb), and a parser would try to hold it all as
// one string.
import { finished } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { formatCount } from './char-budget.ts';
import { ExtractFailure } from './failure.ts';

const NOT_A_DOCX = 'it is not a valid Word document';
const MAX_ENTRIES = 10_000;
// Deflate tops out near 1032:1; real DOCX XML rarely passes 100:1. Small parts may be anything.
const MAX_RATIO = 200;
const RATIO_FLOOR_BYTES = 1024 * 1024;

function megabytes(n: number): string {
  return `${formatCount(Math.ceil(n / 1024 / 1024))} MB`;
}

async function openZip(bytes: Uint8Array): Promise<ZipFile> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return await yauzl.fromBufferPromise(buf, { lazyEntries: true, validateEntrySizes: true });
  } catch (err) {
    throw new ExtractFailure('corrupt', NOT_A_DOCX, { cause: err });
  }
}

/** The central directory, refused as a whole when it lists too many parts or can't be read. */
async function readEntries(zip: ZipFile): Promise<Entry[]> {
  if (zip.entryCount > MAX_ENTRIES)
    throw new ExtractFailure('too_complex', `it has ${formatCount(zip.entryCount)} parts`);
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) entries.push(entry);
  } catch (err) {
    // yauzl refuses strong encryption while reading the directory; anything else is damage.
    if (/encryption/i.test(String((err as Error).message)))
      throw new ExtractFailure('encrypted', '', { cause: err });
    throw new ExtractFailure('corrupt', NOT_A_DOCX, { cause: err });
  }
  return entries;
}

/**
 * Inflates one part to nowhere: yauzl's `validateEntrySizes` stops the stream as soon as it yields
 * more than the central directory declared, so a directory that understates a size is caught
 * after at most that many bytes.
 */
async function checkActualSize(zip: ZipFile, entry: Entry): Promise<void> {
  try {
    await finished((await zip.openReadStreamPromise(entry)).resume());
  } catch (err) {
    if (/too many bytes/.test(String((err as Error).message))) {
      throw new ExtractFailure('too_complex', 'its parts are larger than the file says', {
        cause: err,
      });
    }
    throw new ExtractFailure('corrupt', '', { cause: err });
  }
}

function checkDeclared(entries: readonly Entry[], maxUnzippedBytes: number): void {
  let total = 0;
  for (const e of entries) {
    total += e.uncompressedSize;
    if (e.isEncrypted()) throw new ExtractFailure('encrypted');
    if (e.compressionMethod !== 0 && e.compressionMethod !== 8)
      throw new ExtractFailure('corrupt', 'it uses a compression method I cannot read');
  }
  if (total > maxUnzippedBytes) {
    throw new ExtractFailure(
      'too_complex',
      `it unpacks to ${megabytes(total)}; the limit is ${megabytes(maxUnzippedBytes)}`,
    );
  }
  for (const e of entries) {
    const ratio = e.uncompressedSize / Math.max(1, e.compressedSize);
    if (e.uncompressedSize > RATIO_FLOOR_BYTES && ratio > MAX_RATIO) {
      throw new ExtractFailure(
        'too_complex',
        `a part of it expands ${formatCount(Math.round(ratio))} times when unpacked`,
      );
    }
  }
  if (!entries.some((e) => e.fileName === 'word/document.xml' || e.fileName === '_rels/.rels')) {
    throw new ExtractFailure('corrupt', 'it has no document text part');
  }
}

/**
 * Refuses a DOCX that would unpack to more than `maxUnzippedBytes`, that has a part with an absurd
 * compression ratio, or that is not a DOCX at all. Parts the converter will parse (XML) are also
 * inflated once, since only the central directory's word says how big they are.
 */
export async function checkDocxZip(bytes: Uint8Array, maxUnzippedBytes: number): Promise<void> {
  const zip = await openZip(bytes);
  try {
    const entries = await readEntries(zip);
    checkDeclared(entries, maxUnzippedBytes);
    for (const e of entries) if (/\.(xml|rels)$/i.test(e.fileName)) await checkActualSize(zip, e);
  } finally {
    zip.close();
  }
}
