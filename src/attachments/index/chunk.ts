// Splits extracted sections into overlapping passages for the index. A chunk never spans two
// sections, so the page or heading it reports is the one its text really came from.
import type { ExtractedSection } from '../types.ts';

export interface Chunk {
  text: string;
  page?: number;
  heading?: string;
  /** Offsets of `text` in `joinSections(sections)`: `joined.slice(start, end) === text`. */
  start: number;
  end: number;
  /** ISO 639-1 language its words are read in (set by the attachment index; '' if unknown). */
  lang?: string;
}

export interface ChunkOptions {
  targetChars?: number;
  overlapChars?: number;
}

export const CHUNK_DEFAULTS = {
  targetChars: 800,
  overlapChars: 100,
} as const satisfies Required<ChunkOptions>;

/** What stands between two sections in a file's text, and so in chunk offsets. */
export const SECTION_SEPARATOR = '\n\n';

/** The file's text as chunk offsets count it. */
export function joinSections(sections: readonly ExtractedSection[]): string {
  return sections.map((s) => s.text).join(SECTION_SEPARATOR);
}

// Preferred places to end a chunk, best first. Each regex runs on a window of at most
// `targetChars`, never on the whole section, so chunking stays linear in the text length.
const PARAGRAPH = /\n[ \t\r]*\n/g;
const LINE = /\n/g;
const SENTENCE = /[.!?]['"’”)\]]*(?=\s)|[。！？]/g;
const SPACE = /\s/g;
const WS = /\s/;

function isLowSurrogate(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}

/** End (exclusive) of the last match of `re` in t[from, to), as `pick` reads it off the match. */
function lastBreak(
  re: RegExp,
  t: string,
  from: number,
  to: number,
  pick: (m: RegExpExecArray) => number,
): number | undefined {
  const win = t.slice(from, to);
  re.lastIndex = 0;
  let found: number | undefined;
  for (let m = re.exec(win); m !== null; m = re.exec(win)) found = from + pick(m);
  return found;
}

/** Where a chunk starting at `pos` should end, at most `target` characters on. */
function chunkEnd(t: string, pos: number, target: number): number {
  const lo = pos + Math.floor(target / 2);
  const hi = pos + target;
  const at = (m: RegExpExecArray) => m.index;
  const after = (m: RegExpExecArray) => m.index + m[0].length;
  const end =
    lastBreak(PARAGRAPH, t, lo, hi, at) ??
    lastBreak(LINE, t, lo, hi, at) ??
    lastBreak(SENTENCE, t, lo, hi, after) ??
    lastBreak(SPACE, t, lo, hi, at);
  if (end !== undefined && end > pos) return end;
  return isLowSurrogate(t, hi) ? hi - 1 : hi; // no boundary at all: cut, but not inside a character
}

/** Where the next chunk starts: the earliest sentence or word start in the last `overlap` chars. */
function nextStart(t: string, pos: number, end: number, overlap: number): number {
  if (overlap <= 0) return end;
  const lo = Math.max(pos + 1, end - overlap);
  const win = t.slice(lo, end);
  for (const re of [/(?:[.!?]['"’”)\]]*|[。！？])\s*/, /\n/, /\s/]) {
    const m = re.exec(win);
    if (m && lo + m.index + m[0].length < end) return lo + m.index + m[0].length;
  }
  return isLowSurrogate(t, lo) ? lo + 1 : lo;
}

function skipSpace(t: string, i: number, limit: number): number {
  while (i < limit && WS.test(t.charAt(i))) i++;
  return i;
}

function trimEnd(t: string, from: number, i: number): number {
  while (i > from && WS.test(t.charAt(i - 1))) i--;
  return i;
}

function chunkSection(
  section: ExtractedSection,
  base: number,
  target: number,
  overlap: number,
  out: Chunk[],
): void {
  const t = section.text;
  const last = trimEnd(t, 0, t.length);
  let pos = skipSpace(t, 0, last);
  while (pos < last) {
    // A short tail is kept with its chunk rather than left as a sliver.
    const end =
      last - pos <= target + overlap / 2 ? last : trimEnd(t, pos, chunkEnd(t, pos, target));
    const chunk: Chunk = { text: t.slice(pos, end), start: base + pos, end: base + end };
    if (section.page !== undefined) chunk.page = section.page;
    if (section.heading !== undefined) chunk.heading = section.heading;
    out.push(chunk);
    if (end >= last) break;
    pos = Math.max(pos + 1, skipSpace(t, nextStart(t, pos, end, overlap), last));
  }
}

/** ~`targetChars` passages with ~`overlapChars` shared with the previous one, per section. */
export function chunkSections(
  sections: readonly ExtractedSection[],
  opts: ChunkOptions = {},
): Chunk[] {
  const target = Math.max(20, Math.floor(opts.targetChars ?? CHUNK_DEFAULTS.targetChars));
  // More overlap than a quarter of a chunk would mostly index the same text twice.
  const overlap = Math.min(
    Math.max(0, Math.floor(opts.overlapChars ?? CHUNK_DEFAULTS.overlapChars)),
    Math.floor(target / 4),
  );
  const out: Chunk[] = [];
  let base = 0;
  for (const section of sections) {
    chunkSection(section, base, target, overlap, out);
    base += section.text.length + SECTION_SEPARATOR.length;
  }
  return out;
}
