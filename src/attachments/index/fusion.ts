// Reciprocal-rank fusion of the word ranking and the vector ranking: each list gives a chunk
// 1 / (k + rank), and the sums decide. Ranks, not scores, are fused because BM25 and cosine are
// on unrelated scales. k = 60, the value of the original RRF paper and of the peers that fuse
// this way: with lists of a few dozen, a chunk both lists rank fairly high (3rd and 3rd: 2/63)
// beats one that only one list ranks first (1/61), which is what fusion is for.
import type { Ranked, Scored } from './bm25.ts';

export const RRF_K = 60;

export interface Fused extends Scored {
  lexical?: { rank: number; score: number; coverage: number };
  vector?: { rank: number; cosine: number };
  /** The cosine of a chunk the vector ranking did not hold, for the relevance floor only. */
  cosine?: number;
  /** The reranker's view: its rank and score (0–1), and the chunk's rank before it. */
  rerank?: { rank: number; score: number; before: number };
}

function order(a: Fused, b: Fused): number {
  return b.score - a.score || a.segment - b.segment || a.doc - b.doc;
}

/** One list's own order and scores (a search with a single leg). */
export function lexicalOnly(lexical: readonly Ranked[]): Fused[] {
  return lexical.map((r, i) => ({
    ...r,
    lexical: { rank: i + 1, score: r.score, coverage: r.coverage },
  }));
}

export function vectorOnly(vector: readonly Scored[]): Fused[] {
  return vector.map((r, i) => ({ ...r, vector: { rank: i + 1, cosine: r.score } }));
}

export function fuse(lexical: readonly Ranked[], vector: readonly Scored[], k = RRF_K): Fused[] {
  const byChunk = new Map<string, Fused>();
  const entry = (r: Scored): Fused => {
    const key = `${r.segment}:${r.doc}`;
    let f = byChunk.get(key);
    if (!f) {
      f = { segment: r.segment, doc: r.doc, score: 0 };
      byChunk.set(key, f);
    }
    return f;
  };
  for (const [i, r] of lexical.entries()) {
    const f = entry(r);
    f.score += 1 / (k + i + 1);
    f.lexical = { rank: i + 1, score: r.score, coverage: r.coverage };
  }
  for (const [i, r] of vector.entries()) {
    const f = entry(r);
    f.score += 1 / (k + i + 1);
    f.vector = { rank: i + 1, cosine: r.score };
  }
  return [...byChunk.values()].sort(order);
}
