// BM25 over the union of the segments in reach. Collection statistics (N, average length,
// document frequency) are summed over exactly the queried owners, so a term that is rare in this
// conversation's files ranks as rare no matter what other owners hold.
import type { Segment } from './segment.ts';

export const BM25 = { k1: 1.2, b: 0.75 } as const;

export interface Ranked {
  segment: number;
  doc: number;
  score: number;
}

/** Orders by score, then by segment and chunk position, so equal scores come out the same way. */
function before(a: Ranked, b: Ranked): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.segment !== b.segment) return a.segment < b.segment;
  return a.doc < b.doc;
}

/** Term → weight (idf) for the terms found anywhere in the segments; missing terms are left out. */
export function idfs(segments: readonly Segment[], terms: readonly string[]): Map<string, number> {
  let n = 0;
  for (const s of segments) n += s.chunks.length;
  const out = new Map<string, number>();
  for (const term of terms) {
    let df = 0;
    for (const s of segments) df += (s.postings.get(term)?.length ?? 0) / 2;
    // Lucene's form: never negative, even for a term in most chunks.
    if (df > 0) out.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  return out;
}

export function rank(
  segments: readonly Segment[],
  weights: ReadonlyMap<string, number>,
  limit: number,
): Ranked[] {
  let n = 0;
  let total = 0;
  for (const s of segments) {
    n += s.chunks.length;
    total += s.totalLength;
  }
  if (n === 0 || limit <= 0 || weights.size === 0) return [];
  const avgdl = total / n || 1;
  const { k1, b } = BM25;
  const top: Ranked[] = [];
  for (let si = 0; si < segments.length; si++) {
    const seg = segments[si] as Segment;
    const scores = new Float64Array(seg.chunks.length);
    const touched: number[] = [];
    for (const [term, idf] of weights) {
      const list = seg.postings.get(term);
      if (!list) continue;
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i] as number;
        const tf = list[i + 1] as number;
        const norm = k1 * (1 - b + (b * (seg.lengths[doc] as number)) / avgdl);
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = (scores[doc] as number) + (idf * tf * (k1 + 1)) / (tf + norm);
      }
    }
    for (const doc of touched) {
      const hit: Ranked = { segment: si, doc, score: scores[doc] as number };
      if (top.length === limit && !before(hit, top[limit - 1] as Ranked)) continue;
      // Insertion into a short sorted list: `limit` is a handful of passages.
      let at = top.length;
      while (at > 0 && before(hit, top[at - 1] as Ranked)) at--;
      top.splice(at, 0, hit);
      if (top.length > limit) top.pop();
    }
  }
  return top;
}
