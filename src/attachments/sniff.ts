// What a file really is, from its first bytes: names and declared types are not trusted.
import { isSvg } from './images/is-svg.ts';
import type { AttachmentKind } from './types.ts';

export interface Sniffed {
  kind: AttachmentKind | 'html' | 'ole' | 'zip' | 'svg' | 'binary';
  mime: string;
}

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((v, i) => b[at + i] === v);
const ascii = (b: Uint8Array, from: number, to: number) =>
  Buffer.from(b.subarray(from, to)).toString('latin1');

function zipHasEntry(b: Uint8Array, name: string): boolean {
  // Entry names sit in plain text in local headers and the central directory.
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).includes(name, 0, 'latin1');
}

/** Share of characters from scripts people write in; random bytes decoded as UTF-16 score ~50%. */
function plausibleUtf16(b: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): boolean {
  const n = Math.min(b.length, 8192) & ~1;
  if (n < 2) return false;
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(b.subarray(0, n));
  } catch {
    return false;
  }
  let good = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (
      c === 9 ||
      c === 10 ||
      c === 13 ||
      (c >= 0x20 && c <= 0x7e) ||
      (c >= 0xa0 && c <= 0x24f) ||
      (c >= 0x2000 && c <= 0x206f) ||
      (c >= 0x1100 && c <= 0x11ff) ||
      (c >= 0x3000 && c <= 0x30ff) ||
      (c >= 0x3130 && c <= 0x318f) ||
      (c >= 0x4e00 && c <= 0x9fff) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xff00 && c <= 0xffef)
    ) {
      good++;
    }
  }
  return good / Math.max(1, text.length) >= 0.95;
}

function looksLikeText(b: Uint8Array): boolean {
  const n = Math.min(b.length, 8192);
  if (n === 0) return true;
  // UTF-16 with a BOM: the text decoder handles it.
  if (startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return true;
  let zeros = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = b[i] ?? 0;
    if (c === 0) zeros++;
    else if (c < 9 || (c > 13 && c < 32 && c !== 27)) control++;
  }
  if (zeros === 0 && control / n < 0.02) return true;
  // UTF-16 without a BOM (NULs beside ASCII, or control-range bytes inside Hangul code units).
  return plausibleUtf16(b, 'utf-16le') || plausibleUtf16(b, 'utf-16be');
}

function looksLikeHtml(head: string): boolean {
  return /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(head.replace(/^\uFEFF/, ''));
}

export function sniff(b: Uint8Array): Sniffed {
  if (startsWith(b, [0x25, 0x50, 0x44, 0x46, 0x2d]))
    return { kind: 'pdf', mime: 'application/pdf' }; // %PDF-
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { kind: 'image', mime: 'image/png' };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { kind: 'image', mime: 'image/jpeg' };
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')
    return { kind: 'image', mime: 'image/gif' };
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP')
    return { kind: 'image', mime: 'image/webp' };
  if (startsWith(b, [0x50, 0x4b, 0x03, 0x04])) {
    if (zipHasEntry(b, 'word/document.xml')) {
      return {
        kind: 'docx',
        mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      };
    }
    return { kind: 'zip', mime: 'application/zip' };
  }
  if (startsWith(b, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))
    return { kind: 'ole', mime: 'application/x-ole-storage' };
  if (isSvg(b)) return { kind: 'svg', mime: 'image/svg+xml' };
  const head = Buffer.from(b.subarray(0, 2048)).toString('utf8');
  if (looksLikeText(b)) {
    if (looksLikeHtml(head)) return { kind: 'html', mime: 'text/html' };
    return { kind: 'text', mime: 'text/plain' };
  }
  return { kind: 'binary', mime: 'application/octet-stream' };
}
