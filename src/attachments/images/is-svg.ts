// Content sniffing that runs before any decoder sees the bytes. SVG is refused outright because
// librsvg would parse XML that can name outside files (entities, <image href>, xi:include).
// The one SVG detector: sniff.ts uses it to classify uploads, process-image.ts to refuse them.

import { gunzipSync, constants as zlibConstants } from 'node:zlib';

/** How far into the file we look for the root element; prologs longer than this are refused anyway. */
const SCAN_BYTES = 64 * 1024;
/** How much of a gzip stream (svgz) we inflate to look at its start. */
const GZIP_SCAN_BYTES = 8 * 1024;
const ROOT_SVG = /^<(?:[A-Za-z_][\w.-]*:)?svg(?=[\s/>]|$)/i;

/**
 * True when the content is an SVG document: after an optional BOM, whitespace, XML declaration,
 * processing instructions, comments and a doctype (internal subset included), the root is `<svg`
 * (or a prefixed `<x:svg`). Decided from the bytes alone, never by an XML parser.
 */
export function isSvg(bytes: Uint8Array): boolean {
  const text = decodeHead(bytes);
  const root = skipProlog(text);
  return root >= 0 && ROOT_SVG.test(text.slice(root, root + 64));
}

/** Starts (after BOM and whitespace) with `<`: XML, HTML or SVG, never a raster format we accept. */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  const text = decodeHead(bytes.subarray(0, 1024));
  return /^\s*</.test(text);
}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** True for a gzip-compressed SVG (.svgz), which librsvg would otherwise inflate and parse. */
export function isGzippedSvg(bytes: Uint8Array): boolean {
  if (!isGzip(bytes)) return false;
  try {
    // Only a prefix, flushed rather than finished, so a gzip bomb cannot make us inflate it all.
    const head = gunzipSync(bytes.subarray(0, GZIP_SCAN_BYTES), {
      finishFlush: zlibConstants.Z_SYNC_FLUSH,
      maxOutputLength: 4 * SCAN_BYTES,
    });
    return isSvg(head);
  } catch {
    return false;
  }
}

function decodeHead(bytes: Uint8Array): string {
  const head = bytes.subarray(0, SCAN_BYTES);
  const [b0, b1, b2] = head;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return latin1(head.subarray(3));
  if (b0 === 0xff && b1 === 0xfe) return new TextDecoder('utf-16le').decode(head.subarray(2));
  if (b0 === 0xfe && b1 === 0xff) return utf16be(head.subarray(2));
  // UTF-16 without a BOM still starts with '<' and a zero byte.
  if (b0 === 0x3c && b1 === 0) return new TextDecoder('utf-16le').decode(head);
  if (b0 === 0 && b1 === 0x3c) return utf16be(head);
  // Markup is ASCII; latin1 keeps one char per byte and never throws on invalid UTF-8.
  return latin1(head);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

function utf16be(bytes: Uint8Array): string {
  const swapped = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  swapped.swap16();
  return new TextDecoder('utf-16le').decode(swapped);
}

/** Index of the first element start after the prolog, or -1 if the prolog does not end in `text`. */
function skipProlog(text: string): number {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (text.startsWith('<?', i)) i = endOf(text, '?>', i + 2);
    else if (text.startsWith('<!--', i)) i = endOf(text, '-->', i + 4);
    else if (text.startsWith('<!', i)) i = endOfDeclaration(text, i + 2);
    else return i < text.length ? i : -1;
    if (i < 0) return -1;
  }
}

function endOf(text: string, marker: string, from: number): number {
  const at = text.indexOf(marker, from);
  return at < 0 ? -1 : at + marker.length;
}

/** End of `<!DOCTYPE …>`: `>` inside quotes, comments or the `[…]` internal subset does not count. */
function endOfDeclaration(text: string, from: number): number {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text.charAt(i);
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return -1;
      i = end + 2;
    } else if (c === '[') {
      depth++;
    } else if (c === ']') {
      depth = Math.max(0, depth - 1);
    } else if (c === '>' && depth === 0) {
      return i + 1;
    }
  }
  return -1;
}
