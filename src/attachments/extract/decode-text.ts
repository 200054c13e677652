// Bytes of a text file → a string, guessing the encoding the way a person's editor would: BOM,
// then UTF-16 by its zero bytes, then strict UTF-8, then Korean legacy (EUC-KR/CP949), then
// windows-1252, which decodes anything. Binary files are refused rather than decoded to garbage.
import iconv from 'iconv-lite';
import { asAttachmentError, ExtractFailure } from './failure.ts';

export interface DecodedText {
  text: string;
  encoding: string;
}

const BINARY_DETAIL = 'it looks like a binary file, not text';
// Enough of a file to judge its byte statistics; the whole file is still decoded.
const SAMPLE_BYTES = 64 * 1024;

function decode(label: string, bytes: Uint8Array, fatal = false): string {
  // ignoreBOM: a BOM we detected is skipped by subarray; any other U+FEFF is content.
  return new TextDecoder(label, { fatal, ignoreBOM: true }).decode(bytes);
}

/** Which byte of each 16-bit unit is zero, if the sample looks like UTF-16 without a BOM. */
function utf16Order(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length, SAMPLE_BYTES) & ~1;
  if (n < 4) return undefined;
  let zerosEven = 0;
  let zerosOdd = 0;
  for (let i = 0; i < n; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) zerosEven++;
    else zerosOdd++;
  }
  const units = n / 2;
  // Text in UTF-16 has a zero high byte for every ASCII character (spaces and newlines count, so
  // even Korean prose has plenty) and rarely a zero low byte (글 is U+AE00). Binary data has its
  // zeros at both parities alike.
  if (zerosOdd >= units * 0.1 && zerosEven <= zerosOdd * 0.2) return 'utf-16le';
  if (zerosEven >= units * 0.1 && zerosOdd <= zerosEven * 0.2) return 'utf-16be';
  return undefined;
}

/**
 * CP949 (Windows Korean, the WHATWG "euc-kr"), or undefined at a byte sequence it does not define.
 * Not TextDecoder('euc-kr'): Node's only knows KS X 1001 and silently drops the lead byte of the
 * 8,822 extension syllables (똠 = 8C 63 comes out as "c"), even with fatal: true. iconv-lite has
 * the whole table but no fatal mode; U+FFFD, which no CP949 sequence decodes to, marks an error.
 */
function decodeCp949(bytes: Uint8Array): string | undefined {
  const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'cp949');
  return text.includes('\uFFFD') ? undefined : text;
}

function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decode('utf-8', bytes, true);
  } catch {
    // A file cut off mid-character (truncated upload) is still UTF-8: retry without the tail.
    for (let cut = 1; cut <= 3 && cut < bytes.length; cut++) {
      const b = bytes[bytes.length - cut] ?? 0;
      if (b < 0x80) return undefined;
      if (b < 0xc0) continue;
      try {
        return decode('utf-8', bytes.subarray(0, bytes.length - cut), true);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}

/**
 * True when the bytes are valid CP949 and most double-byte characters are KS X 1001 Hangul
 * syllables (lead 0xB0–0xC8, trail 0xA1–0xFE). windows-1252 text with accents often happens to be
 * valid CP949 too, but its byte pairs land in the Hanja and extension ranges instead.
 */
function looksKorean(bytes: Uint8Array): boolean {
  let pairs = 0;
  let hangul = 0;
  const n = Math.min(bytes.length, SAMPLE_BYTES);
  for (let i = 0; i < n; i++) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) continue;
    const trail = bytes[i + 1];
    if (trail === undefined) break;
    pairs++;
    if (lead >= 0xb0 && lead <= 0xc8 && trail >= 0xa1 && trail <= 0xfe) hangul++;
    i++;
  }
  return pairs > 0 && hangul >= pairs * 0.6;
}

// Controls (but tab, newlines, form feed and ESC of coloured logs), private-use and unassigned
// code points, and U+FFFD: rare in any real text, common when binary data is decoded as text.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is exempted on purpose
const NOT_TEXT = /(?![\t\n\v\f\r\x1b])[\p{Cc}\p{Co}\p{Cn}\uFFFD]/gu;

function notTextRatio(text: string): number {
  const sample = text.length > SAMPLE_BYTES ? text.slice(0, SAMPLE_BYTES) : text;
  if (sample.length === 0) return 0;
  return (sample.match(NOT_TEXT)?.length ?? 0) / sample.length;
}

function checked(text: string, encoding: string): DecodedText {
  if (notTextRatio(text) > 0.05) throw new ExtractFailure('unsupported_type', BINARY_DETAIL);
  return { text, encoding };
}

/**
 * Decodes a text file. Throws AttachmentError('unsupported_type') for binary content; empty input
 * gives empty text (the caller decides whether that is an error). `filename` only goes into the
 * error's user message.
 */
export function decodeText(bytes: Uint8Array, filename = 'this file'): DecodedText {
  try {
    return decodeTextOrFail(bytes);
  } catch (err) {
    throw asAttachmentError(err, filename);
  }
}

/** decodeText for code that reports failures as ExtractFailure (the extraction worker). */
export function decodeTextOrFail(bytes: Uint8Array): DecodedText {
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    return checked(decode('utf-8', bytes.subarray(3)), 'utf-8');
  }
  if (b0 === 0xff && b1 === 0xfe) return checked(decode('utf-16le', bytes.subarray(2)), 'utf-16le');
  if (b0 === 0xfe && b1 === 0xff) return checked(decode('utf-16be', bytes.subarray(2)), 'utf-16be');

  const order = utf16Order(bytes);
  if (order) return checked(decode(order, bytes), order);
  // Outside UTF-16 a NUL byte means a binary format, whatever the rest looks like.
  if (bytes.includes(0)) throw new ExtractFailure('unsupported_type', BINARY_DETAIL);

  const utf8 = strictUtf8(bytes);
  if (utf8 !== undefined) return checked(utf8, 'utf-8');
  if (looksKorean(bytes)) {
    const korean = decodeCp949(bytes);
    if (korean !== undefined) return checked(korean, 'euc-kr');
  }
  return checked(decode('windows-1252', bytes), 'windows-1252');
}
