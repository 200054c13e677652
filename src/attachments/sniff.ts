// What a file really is, from its first bytes: names and declared types are not trusted.
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

function looksLikeText(b: Uint8Array): boolean {
  const n = Math.min(b.length, 8192);
  if (n === 0) return true;
  // UTF-16 (with or without BOM) has NULs in every other byte; the text decoder handles it.
  if (startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return true;
  let zerosEven = 0;
  let zerosOdd = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = b[i] ?? 0;
    if (c === 0) {
      if (i % 2 === 0) zerosEven++;
      else zerosOdd++;
    } else if (c < 9 || (c > 13 && c < 32 && c !== 27)) control++;
  }
  const half = n / 2;
  if (
    (zerosOdd > half * 0.3 && zerosEven < half * 0.05) ||
    (zerosEven > half * 0.3 && zerosOdd < half * 0.05)
  )
    return true;
  return zerosEven + zerosOdd === 0 && control / n < 0.02;
}

function looksLikeSvg(head: string): boolean {
  const s = head
    .replace(/^\uFEFF/, '')
    .replace(/<\?xml[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[\s\S]*?(\[[\s\S]*?\])?\s*>/gi, '')
    .trimStart();
  return /^<svg[\s>]/i.test(s);
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
  const head = Buffer.from(b.subarray(0, 2048)).toString('utf8');
  if (looksLikeSvg(head)) return { kind: 'svg', mime: 'image/svg+xml' };
  if (looksLikeText(b)) {
    if (looksLikeHtml(head)) return { kind: 'html', mime: 'text/html' };
    return { kind: 'text', mime: 'text/plain' };
  }
  return { kind: 'binary', mime: 'application/octet-stream' };
}
