// What a hit shows: its chunk completed to whole sentences, or — when that is longer than the
// passage may be — a window of whole sentences around the ones holding the most (and rarest)
// query words, reaching into the neighbouring chunk when a sentence there holds query words too.
// Only a single "sentence" longer than the passage itself (a table row, a line of code with no
// break) is cut, at word boundaries and marked with "…".
import type { Chunk } from './chunk.ts';
import type { Segment } from './segment.ts';
import { lineSpans, type Span, sentenceSpans } from './sentences.ts';
import { tokenize, tokenizeWithOffsets } from './tokenize.ts';

export interface Passage {
  text: string;
  /** Offsets in the file's extracted text. */
  start: number;
  end: number;
}

/** Chunks `from`…`to` as one text: overlaps once, skipped gaps as white space of their length. */
function merged(
  chunks: readonly Chunk[],
  from: number,
  to: number,
): { text: string; base: number } {
  const first = chunks[from] as Chunk;
  const base = first.start;
  let text = first.text;
  for (let i = from + 1; i <= to; i++) {
    const c = chunks[i] as Chunk;
    const at = base + text.length;
    if (c.start >= at) {
      const gap = c.start - at;
      text += (gap >= 2 ? '\n' : ' ').repeat(gap) + c.text;
    } else if (c.end > at) text += c.text.slice(at - c.start);
  }
  return { text, base };
}

/** Runs of spaces and blank lines shown once. */
export function tidy(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n[\s]*\n\s*/g, '\n\n')
    .trim();
}

/**
 * The whole file's text as its chunks hold it. A paged file marks where each page starts, so the
 * model can still cite pages.
 */
export function wholeText(seg: Segment): Passage {
  const chunks = seg.chunks;
  const last = chunks.length - 1;
  const start = (chunks[0] as Chunk).start;
  const end = (chunks[last] as Chunk).end;
  if (!chunks.some((c) => c.page !== undefined)) {
    return { text: tidy(merged(chunks, 0, last).text), start, end };
  }
  const pages: string[] = [];
  for (let from = 0; from <= last; ) {
    let to = from;
    while (to < last && (chunks[to + 1] as Chunk).page === (chunks[from] as Chunk).page) to++;
    const page = (chunks[from] as Chunk).page;
    const body = tidy(merged(chunks, from, to).text);
    pages.push(page === undefined ? body : `[page ${page}]\n${body}`);
    from = to + 1;
  }
  return { text: pages.join('\n\n'), start, end };
}

function sameSection(a: Chunk | undefined, b: Chunk): boolean {
  return a !== undefined && a.page === b.page && a.heading === b.heading;
}

function termScore(text: string, lang: string | undefined, weights: ReadonlyMap<string, number>) {
  let score = 0;
  for (const t of new Set(tokenize(text, lang))) score += weights.get(t) ?? 0;
  return score;
}

/** A sentence longer than the passage: `cap` characters around its first query word. */
function cutLong(
  text: string,
  span: Span,
  lang: string | undefined,
  weights: ReadonlyMap<string, number>,
  cap: number,
) {
  const body = text.slice(span.start, span.end).normalize('NFKC');
  const hit = tokenizeWithOffsets(body, lang).find((t) => weights.has(t.term));
  const centre = hit ? hit.start : 0;
  let from = Math.max(0, Math.min(centre - Math.floor(cap / 3), body.length - cap));
  let to = Math.min(body.length, from + cap - 2);
  if (from > 0) from = body.indexOf(' ', from) + 1 || from;
  if (to < body.length) to = Math.max(from + 1, body.lastIndexOf(' ', to));
  const shown = `${from > 0 ? '…' : ''}${body.slice(from, to).trim()}${to < body.length ? '…' : ''}`;
  return { text: tidy(shown), start: span.start + from, end: span.start + to };
}

/**
 * The passage of chunk `doc`, at most `cap` characters: `weights` are the query's terms with their
 * idf (empty for a hit found by its vector alone, which shows its chunk from the start).
 */
export function passageFor(
  seg: Segment,
  doc: number,
  weights: ReadonlyMap<string, number>,
  cap: number,
): Passage | undefined {
  const chunk = seg.chunks[doc] as Chunk;
  // Two chunks of context each way within the section. Where that text starts or stops inside the
  // section, its first or last "sentence" may be a piece of one: never shown.
  let lo = doc;
  while (lo > doc - 2 && sameSection(seg.chunks[lo - 1], chunk)) lo--;
  let hi = doc;
  while (hi < doc + 2 && sameSection(seg.chunks[hi + 1], chunk)) hi++;
  const { text, base } = merged(seg.chunks, lo, hi);
  let spans = sentenceSpans(text).flatMap((s) =>
    s.end - s.start > cap ? lineSpans(text, s) : [s],
  );
  if (spans.length > 1 && sameSection(seg.chunks[lo - 1], chunk)) spans = spans.slice(1);
  if (spans.length > 1 && sameSection(seg.chunks[hi + 1], chunk)) spans = spans.slice(0, -1);
  const c0 = chunk.start - base;
  const c1 = chunk.end - base;
  const first = spans.findIndex((s) => s.end > c0);
  const last = spans.findLastIndex((s) => s.start < c1);
  if (first < 0 || last < first) return undefined;
  const scores = spans.map((s) => termScore(text.slice(s.start, s.end), chunk.lang, weights));
  let best = first;
  for (let i = first; i <= last; i++)
    if ((scores[i] as number) > (scores[best] as number)) best = i;
  const bestSpan = spans[best] as Span;
  if (bestSpan.end - bestSpan.start > cap) {
    const cut = cutLong(text, bestSpan, chunk.lang, weights, cap);
    return { text: cut.text, start: base + cut.start, end: base + cut.end };
  }
  let i = best;
  let j = best;
  const inCore = (k: number) => k >= first && k <= last;
  const allowed = (k: number) =>
    k >= 0 && k < spans.length && (inCore(k) || (scores[k] as number) > 0);
  const fits = (a: number, b: number) => (spans[b] as Span).end - (spans[a] as Span).start <= cap;
  for (;;) {
    const options = [j + 1, i - 1].filter(allowed);
    // Higher-scoring sentences first, then the chunk's own, then what follows.
    options.sort(
      (a, b) =>
        (scores[b] as number) - (scores[a] as number) || Number(inCore(b)) - Number(inCore(a)),
    );
    const next = options.find((k) => (k < i ? fits(k, j) : fits(i, k)));
    if (next === undefined) break;
    if (next < i) i = next;
    else j = next;
  }
  const start = (spans[i] as Span).start;
  const end = (spans[j] as Span).end;
  return { text: tidy(text.slice(start, end)), start: base + start, end: base + end };
}
