// Splits a Markdown answer into parts that fit a platform's message limit (Slack, Discord) while
// keeping every part valid Markdown on its own: a fenced code block is never cut if it fits in one
// part, and a block too big for any part is closed at the end of a part and reopened, with the same
// info string, at the start of the next. Fences are read by fences.ts.

import { closingFence, type OpenFence, scanFences } from './fences.ts';

/** Below this a part cannot hold a reopened fence, a closing fence and some code. */
export const MIN_SPLIT_LIMIT = 20;

// A break at a preferred level is only taken if the part keeps at least this share of the room;
// otherwise a short intro line would go out as a message of its own.
const MIN_FILL = 1 / 3;

// Cut levels, best first. A cut position `c` ends a part just before src[c].
const PARAGRAPH = 0;
const LINE = 1;
const SENTENCE = 2;
const SPACE = 3;
const HARD = 4;

const SENTENCE_END = '.!?…。！？';
const CJK_SENTENCE_END = '。！？';
// Closing punctuation and emphasis that may follow a sentence's full stop: `**Done.**  Next`.
const SENTENCE_CLOSERS = ')]}"\'”’»*_';

type Fence = {
  /** Index of the opening fence line. */
  start: number;
  /** Index just after the opening line's newline. */
  bodyStart: number;
  /** Index of the closing fence line. */
  closeStart: number;
  /** Index just after the closing line (and its newline, if any). */
  end: number;
  /** The opening line as written (trailing whitespace dropped), reused to reopen, e.g. '```ts'. */
  open: string;
  /** Indentation plus the opening fence characters, which always close it. */
  close: string;
  /** True when the whole block fits in one part, so no cut may fall inside it. */
  fits: boolean;
};

function makeFence(
  text: string,
  open: OpenFence,
  closeStart: number,
  end: number,
  limit: number,
): Fence {
  const length = trimmedEnd(text, open.start, end) - open.start;
  return {
    start: open.start,
    bodyStart: open.bodyStart,
    closeStart,
    end,
    open: open.line,
    close: closingFence(open),
    fits: length <= limit,
  };
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v';
}

/** End index of src[from, to) once trailing whitespace is dropped. */
function trimmedEnd(src: string, from: number, to: number): number {
  let end = to;
  while (end > from && isSpace(src[end - 1])) end--;
  return end;
}

/** Skips whole whitespace-only lines starting at `pos` (a part never starts with blank lines). */
function skipBlankLines(src: string, pos: number): number {
  let at = pos;
  for (;;) {
    let j = at;
    while (j < src.length && (src[j] === ' ' || src[j] === '\t' || src[j] === '\r')) j++;
    if (j >= src.length) return src.length;
    if (src[j] !== '\n') return at;
    at = j + 1;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Whether a cut just after the whitespace at src[c - 1] follows the end of a sentence. */
function isSentenceEnd(src: string, from: number, c: number): boolean {
  let k = c - 1;
  while (k > from && (src[k - 1] === ' ' || src[k - 1] === '\t')) k--;
  let j = k - 1;
  while (j >= from && SENTENCE_CLOSERS.includes(src[j] ?? '')) j--;
  if (j < from || !SENTENCE_END.includes(src[j] ?? '')) return false;
  // "1. Install" is a list marker, not a sentence.
  let m = j - 1;
  while (m >= 0 && /[\d \t]/.test(src[m] ?? '')) m--;
  return m >= 0 && src[m] !== '\n';
}

type Cut = { at: number; fence: Fence | undefined; midLine: boolean };

function findCut(src: string, pos: number, prefixLen: number, fences: Fence[], limit: number): Cut {
  const best: (Cut | undefined)[] = [];
  let lastNonSpace = pos;
  let lineBlank = true;
  let prevLineBlank = false;
  let ticks = 0;
  let fi = 0;
  for (let c = pos + 1; c <= src.length; c++) {
    const ch = src[c - 1];
    if (ch === '\n') {
      prevLineBlank = lineBlank;
      lineBlank = true;
      ticks = 0;
    } else if (!isSpace(ch)) {
      lineBlank = false;
      lastNonSpace = c;
      if (ch === '`') ticks++;
    }
    const size = prefixLen + (lastNonSpace - pos);
    // Trimmed length only grows with c, so nothing further along can fit either.
    if (size > limit) break;
    if (lastNonSpace === pos) continue;

    while (fi < fences.length && (fences[fi]?.end ?? 0) < c) fi++;
    let fence = fences[fi];
    const atBoundary = fence !== undefined && (c === fence.start || c === fence.end);
    if (fence && c === fence.end) fence = fences[fi + 1];
    let inBody = false;
    if (fence && c > fence.start) {
      if (fence.fits || c <= fence.bodyStart || c >= fence.closeStart) continue;
      inBody = true;
    }
    if (inBody && fence && size + 1 + fence.close.length > limit) continue;

    let level: number;
    if (ch === '\n') {
      level = atBoundary || prevLineBlank ? PARAGRAPH : LINE;
    } else if (ch === ' ' || ch === '\t') {
      // A space inside an inline code span is a worse cut than any other space.
      const inSpan = !inBody && ticks % 2 === 1;
      if (inSpan) level = HARD;
      else level = !inBody && isSentenceEnd(src, pos, c) ? SENTENCE : SPACE;
    } else if (!inBody && CJK_SENTENCE_END.includes(ch ?? '') && ticks % 2 === 0) {
      level = SENTENCE;
    } else {
      if (isHighSurrogate(src.charCodeAt(c - 1)) && isLowSurrogate(src.charCodeAt(c))) continue;
      level = HARD;
    }
    best[level] = {
      at: c,
      fence: inBody ? fence : undefined,
      midLine: level === SENTENCE || level === SPACE,
    };
  }

  const room = limit - prefixLen;
  for (let level = PARAGRAPH; level < HARD; level++) {
    const cut = best[level];
    if (cut && cut.at - pos >= room * MIN_FILL) return cut;
  }
  for (let level = PARAGRAPH; level <= HARD; level++) {
    const cut = best[level];
    if (cut) return cut;
  }
  // Unreachable while limit >= MIN_SPLIT_LIMIT: a one-character hard cut always fits.
  throw new Error(`splitMessage found no cut at ${pos}`);
}

/**
 * Splits Markdown `text` into parts of at most `limit` UTF-16 code units, in order, preferring to
 * break between paragraphs, then at a line break, a sentence end, a space, and only then anywhere
 * (never inside a surrogate pair). Parts are trimmed of leading blank lines and trailing whitespace;
 * a whitespace-only text gives no parts. Code fences are kept balanced in every part: blocks that
 * fit are never split, bigger ones are closed and reopened, and an unclosed final fence is closed.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isFinite(limit) || limit < MIN_SPLIT_LIMIT) {
    throw new RangeError(`splitMessage limit must be at least ${MIN_SPLIT_LIMIT}, got ${limit}`);
  }
  const max = Math.floor(limit);
  let src = text;
  const scan = scanFences(src);
  const all = scan.closed.map((f) => makeFence(src, f, f.closeStart, f.end, max));
  if (scan.open) {
    // Close a fence the model left open (e.g. the answer was cut off) so the last part renders.
    const closeStart = src.length + (src.endsWith('\n') ? 0 : 1);
    src = `${src}${src.endsWith('\n') ? '' : '\n'}${closingFence(scan.open)}`;
    all.push(makeFence(src, scan.open, closeStart, src.length, max));
  }
  // A block whose own fence lines leave no room for code cannot be reopened; treat it as prose.
  const fences = all.filter((f) => f.fits || f.open.length + f.close.length + 12 <= max);

  const parts: string[] = [];
  let pos = skipBlankLines(src, 0);
  while (pos < src.length) {
    const fence = fences.find((f) => f.start < pos && pos < f.end);
    if (fence && pos >= fence.closeStart) {
      // Only the closing fence was left: the previous part already closed the block.
      pos = skipBlankLines(src, fence.end);
      continue;
    }
    const prefix = fence ? `${fence.open}\n` : '';
    const end = trimmedEnd(src, pos, src.length);
    if (end <= pos) break;
    if (prefix.length + (end - pos) <= max) {
      parts.push(prefix + src.slice(pos, end));
      break;
    }
    const cut = findCut(src, pos, prefix.length, fences, max);
    const body = src.slice(pos, trimmedEnd(src, pos, cut.at));
    parts.push(prefix + body + (cut.fence ? `\n${cut.fence.close}` : ''));
    pos = cut.at;
    if (cut.midLine) while (src[pos] === ' ' || src[pos] === '\t') pos++;
    pos = skipBlankLines(src, pos);
  }
  return parts;
}
