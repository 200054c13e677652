// Hybrid ranking: reciprocal-rank fusion of the fulltext and vector candidate lists. Lucene scores
// and cosine similarities are on unrelated scales, so only ranks are combined: fused = Σ 1/(k + rank)
// over the lists a chunk is in (rank from 1). A chunk both lists found beats one only a single list
// ranked, unless that one is far ahead there. Before fusing, every candidate whose similarity to the
// question is known and below the floor is dropped, a lexical hit too: sharing a word ("fi" in a
// shell script) is not being about the question, and an unrelated question must find nothing.
// A lexical hit with no vector of the question's model (not embedded yet, or by another model, which
// is never compared) is kept on its words alone.
import type { ChunkHit, ScoredHit } from './graph-queries.ts';
import { cosine } from './query-vector.ts';

export interface Fused {
  hit: ChunkHit;
  /** `fulltext` and `vector` when known, and `fused`. */
  scores: Record<string, number>;
}

export interface FusionOptions {
  rrfK: number;
  minSimilarity: number;
  limit: number;
}

interface Entry {
  hit: ChunkHit;
  fulltext?: number;
  vector?: number;
  fused: number;
}

/**
 * `lexical` best first by Lucene score, `semantic` best first by cosine; `question` is the
 * question's vector and the id of the model that made it.
 */
export function fuse(
  lexical: readonly ScoredHit[],
  semantic: readonly ScoredHit[],
  question: { vector: readonly number[]; model: string },
  o: FusionOptions,
): Fused[] {
  const byChunk = new Map<string, Entry>();
  const entry = (hit: ChunkHit): Entry => {
    let e = byChunk.get(hit.chunk_id);
    if (!e) {
      e = { hit, fused: 0 };
      byChunk.set(hit.chunk_id, e);
    }
    return e;
  };
  for (const [i, s] of semantic.entries()) {
    const e = entry(s.hit);
    e.vector = s.score;
    e.fused += 1 / (o.rrfK + i + 1);
  }
  for (const [i, s] of lexical.entries()) {
    const e = entry(s.hit);
    e.fulltext = s.score;
    e.fused += 1 / (o.rrfK + i + 1);
    if (e.vector === undefined && s.embedding?.model === question.model)
      e.vector = cosine(question.vector, s.embedding.vector);
  }
  return [...byChunk.values()]
    .filter((e) => e.vector === undefined || e.vector >= o.minSimilarity)
    .sort(
      (a, b) =>
        b.fused - a.fused ||
        (b.vector ?? -1) - (a.vector ?? -1) ||
        (b.fulltext ?? 0) - (a.fulltext ?? 0),
    )
    .slice(0, o.limit)
    .map((e) => ({
      hit: e.hit,
      scores: {
        ...(e.fulltext !== undefined ? { fulltext: e.fulltext } : {}),
        ...(e.vector !== undefined ? { vector: e.vector } : {}),
        fused: e.fused,
      },
    }));
}

/** `vector` mode: the semantic list above the floor, scored by similarity alone. */
export function aboveFloor(semantic: readonly ScoredHit[], minSimilarity: number): Fused[] {
  return semantic
    .filter((s) => s.score >= minSimilarity)
    .map((s) => ({ hit: s.hit, scores: { vector: s.score } }));
}
