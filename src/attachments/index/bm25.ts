// BM25 over the union of the segments in reach. Collection statistics (N, average length,
// document frequency) are summed over exactly the queried owners, so a term that is rare in this
// conversation's files ranks as rare no matter what other owners hold. A query part's alternatives
// (one word read in two languages) score as the best of them, never as their sum.
//
// Each chunk also gets its coverage: the idf-weighted share of query words it holds. A query word
// found nowhere weighs as much as the rarest present one, so "wifi password office" against a
// handbook that only says "office" covers little, however well "office" itself scores.
import type { AnalysedQuery } from './query-terms.ts';
import type { Segment } from './segment.ts';

export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** A chunk in a ranking: which segment, which chunk of it, how well it scored. */
export interface Scored {
  segment: number;
  doc: number;
  score: number;
}

export interface Ranked extends Scored {
  /** Weighted share of the query's words this chunk holds, 0–1. */
  coverage: number;
}

/** Orders by score, then by segment and chunk position, so equal scores come out the same way. */
export function before(a: Scored, b: Scored): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.segment !== b.segment) return a.segment < b.segment;
  return a.doc < b.doc;
}

/** Keeps `top` the best `limit` items, best first (insertion: `limit` is a few dozen at most). */
export function keepTop<T extends Scored>(top: T[], hit: T, limit: number): void {
  if (top.length === limit && !before(hit, top[limit - 1] as T)) return;
  let at = top.length;
  while (at > 0 && before(hit, top[at - 1] as T)) at--;
  top.splice(at, 0, hit);
  if (top.length > limit) top.pop();
}

/** Term → idf for the query's terms found anywhere in the segments (Lucene's form, never < 0). */
export function idfs(segments: readonly Segment[], terms: readonly string[]): Map<string, number> {
  const n = chunkCount(segments);
  const out = new Map<string, number>();
  for (const term of terms) {
    let df = 0;
    for (const s of segments) df += (s.postings.get(term)?.length ?? 0) / 2;
    if (df > 0) out.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  return out;
}

function chunkCount(segments: readonly Segment[]): number {
  let n = 0;
  for (const s of segments) n += s.chunks.length;
  return n;
}

/**
 * What a query word found in no chunk weighs: as much as a word found in exactly one, the rarest a
 * present word can be. So a missing word counts as fully as a rare matched one, whatever the
 * number of chunks (a floor of "half the weight" means the same for 3 chunks and for 10,000).
 */
export function absentIdf(segments: readonly Segment[]): number {
  const n = chunkCount(segments);
  return Math.log(1 + (n - 1 + 0.5) / (1 + 0.5));
}

interface Plan {
  /** Per unit: its parts' present terms with idf, its weight, and how many parts it needs. */
  units: { parts: [string, number][][]; weight: number; need: number }[];
  totalWeight: number;
}

function plan(query: AnalysedQuery, weights: ReadonlyMap<string, number>, absent: number): Plan {
  let totalWeight = 0;
  const units = query.units.map((u) => {
    const parts = u.parts.map((p) =>
      p.flatMap((t): [string, number][] => (weights.has(t) ? [[t, weights.get(t) as number]] : [])),
    );
    // A word's weight: its rarest part, or the most possible when no part occurs at all.
    let weight = 0;
    for (const p of parts)
      weight = Math.max(weight, p.length ? Math.max(...p.map((x) => x[1])) : absent);
    totalWeight += weight;
    // Several pieces (identifier parts, CJK bigrams): one may be missing, e.g. a particle's bigram.
    const need = parts.length >= 2 ? parts.length - 1 : 1;
    return { parts: parts.filter((p) => p.length > 0), weight, need };
  });
  return { units, totalWeight };
}

/** The best `limit` chunks by BM25, each with its coverage; best first, ties in chunk order. */
export function rank(
  segments: readonly Segment[],
  query: AnalysedQuery,
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
  const p = plan(query, weights, absentIdf(segments));
  if (p.totalWeight === 0) return [];
  const top: Ranked[] = [];
  for (let si = 0; si < segments.length; si++) {
    const seg = segments[si] as Segment;
    const size = seg.chunks.length;
    const scores = new Float64Array(size);
    const covered = new Float64Array(size);
    const best = new Float64Array(size);
    const matched = new Uint16Array(size);
    const touched = new Set<number>();
    for (const unit of p.units) {
      const unitDocs: number[] = [];
      for (const part of unit.parts) {
        const partDocs: number[] = [];
        for (const [term, idf] of part) {
          const list = seg.postings.get(term);
          if (!list) continue;
          for (let i = 0; i < list.length; i += 2) {
            const doc = list[i] as number;
            const tf = list[i + 1] as number;
            const norm = k1 * (1 - b + (b * (seg.lengths[doc] as number)) / avgdl);
            const s = (idf * tf * (k1 + 1)) / (tf + norm);
            if (best[doc] === 0) partDocs.push(doc);
            if (s > (best[doc] as number)) best[doc] = s;
          }
        }
        for (const doc of partDocs) {
          scores[doc] = (scores[doc] as number) + (best[doc] as number);
          best[doc] = 0;
          if (matched[doc] === 0) unitDocs.push(doc);
          matched[doc] = (matched[doc] as number) + 1;
        }
      }
      for (const doc of unitDocs) {
        covered[doc] =
          (covered[doc] as number) +
          unit.weight * Math.min(1, (matched[doc] as number) / unit.need);
        matched[doc] = 0;
        touched.add(doc);
      }
    }
    for (const doc of touched) {
      const coverage = (covered[doc] as number) / p.totalWeight;
      keepTop(top, { segment: si, doc, score: scores[doc] as number, coverage }, limit);
    }
  }
  return top;
}
