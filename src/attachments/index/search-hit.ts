// Ranked chunks become what the model reads, within the search's character budget: a document
// small enough is given whole (once, whatever else of it ranked), every other hit its passage.
// A passage that mostly repeats one already shown (overlapping chunks, or the same boilerplate on
// every page) is left out.
import type { SearchHit } from '../types.ts';
import type { Chunk } from './chunk.ts';
import type { Fused } from './fusion.ts';
import { type Passage, passageFor, wholeText } from './passage.ts';
import type { Segment } from './segment.ts';

export interface PassageBudget {
  /** Characters of passage text one search returns at most. */
  maxChars: number;
  /** Characters one passage takes at most. */
  passageChars: number;
  /** Whether a small file may be given whole. */
  wholeDocuments: boolean;
}

/** Below this much room left, another passage would be a fragment: the search stops there. */
const MIN_PASSAGE_CHARS = 160;

function overlapShare(p: Passage, shown: readonly Passage[]): number {
  let covered = 0;
  for (const s of shown)
    covered += Math.max(0, Math.min(p.end, s.end) - Math.max(p.start, s.start));
  return covered / Math.max(1, p.end - p.start);
}

function hitOf(seg: Segment, chunk: Chunk, f: Fused, p: Passage, whole: boolean): SearchHit {
  const hit: SearchHit = {
    owner: { ...seg.record.owner },
    fileId: seg.record.fileId,
    filename: seg.record.filename,
    passage: p.text,
    whole,
    start: p.start,
    end: p.end,
    score: f.score,
  };
  if (seg.record.link !== undefined) hit.link = seg.record.link;
  if (chunk.page !== undefined) hit.page = chunk.page;
  if (chunk.heading !== undefined) hit.heading = chunk.heading;
  if (f.lexical) hit.lexical = f.lexical;
  if (f.vector) hit.vector = f.vector;
  if (f.rerank) hit.rerank = f.rerank;
  return hit;
}

/** Up to `limit` hits in rank order; `weights` are the query terms' idf (for choosing sentences). */
export function toHits(
  segments: readonly Segment[],
  ranked: readonly Fused[],
  weights: ReadonlyMap<string, number>,
  limit: number,
  budget: PassageBudget,
): SearchHit[] {
  const out: SearchHit[] = [];
  const shown = new Map<Segment, Passage[]>();
  const whole = new Set<Segment>();
  const texts = new Set<string>();
  let left = budget.maxChars;
  for (const f of ranked) {
    if (out.length >= limit || left < MIN_PASSAGE_CHARS) break;
    const seg = segments[f.segment] as Segment;
    if (whole.has(seg)) continue;
    const chunk = seg.chunks[f.doc] as Chunk;
    // The top hit's document may fill the budget; later ones at most half of it. Its raw span
    // (page marks aside) bounds its shown length, so a big file is never assembled to be measured.
    const room = out.length === 0 ? left : Math.min(left, budget.maxChars / 2);
    const span = (seg.chunks.at(-1) as Chunk).end - (seg.chunks[0] as Chunk).start;
    const all =
      budget.wholeDocuments && span <= room && !shown.has(seg) ? wholeText(seg) : undefined;
    if (all && all.text.length <= room) {
      whole.add(seg);
      // The same file posted in the thread and in its channel is shown once.
      if (texts.has(all.text)) continue;
      texts.add(all.text);
      out.push(hitOf(seg, chunk, f, all, true));
      left -= all.text.length;
      continue;
    }
    const p = passageFor(seg, f.doc, weights, Math.min(budget.passageChars, left));
    if (!p || p.text.length > left) continue;
    const before = shown.get(seg) ?? [];
    if (overlapShare(p, before) > 0.5 || texts.has(p.text)) continue;
    texts.add(p.text);
    before.push(p);
    shown.set(seg, before);
    out.push(hitOf(seg, chunk, f, p, false));
    left -= p.text.length;
  }
  return out;
}
