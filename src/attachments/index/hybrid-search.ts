// One search over the segments in reach: words (BM25, per language) and, when the query could be
// embedded, vectors — each ranking cut at its relevance floor, fused by reciprocal rank, and
// turned into passages within the character budget.
import type { SearchHit } from '../types.ts';
import { idfs, rank } from './bm25.ts';
import { EmbeddingShapeError } from './embed-texts.ts';
import { type Fused, fuse, lexicalOnly, vectorOnly } from './fusion.ts';
import { analyseQuery } from './query-terms.ts';
import { NO_FLOOR, type RelevanceFloor } from './relevance.ts';
import { type PassageBudget, toHits } from './search-hit.ts';
import type { Segment } from './segment.ts';
import { comparable, vectorRank } from './vector-rank.ts';

export type SearchMode = 'lexical' | 'vector' | 'hybrid';

export interface SearchOptions {
  /** Default: hybrid when the index has an embedder, else lexical. */
  mode?: SearchMode;
  /** False keeps hits below the relevance floor (to measure ranking alone). Default true. */
  relevanceFloor?: boolean;
  /** This search's character budget instead of the index's. */
  maxChars?: number;
}

export interface QueryVector {
  model: string;
  vector: Float32Array;
}

export interface SearchRun {
  segments: readonly Segment[];
  query: string;
  limit: number;
  mode: SearchMode;
  /** Undefined: no floor. */
  floor: RelevanceFloor | undefined;
  budget: PassageBudget;
  /** The query's vector, being made while the words are ranked; resolves undefined on failure. */
  queryVector: Promise<QueryVector | undefined> | undefined;
  /** Called with the segments whenever a query vector exists, so stale vectors get replaced. */
  onVectors: (segments: readonly Segment[]) => void;
  onWrongDimension: (err: Error) => void;
}

/** Candidates each ranking contributes to fusion: deep enough that fusion can reorder. */
function candidates(limit: number): number {
  return Math.max(40, limit * 4);
}

export async function runSearch(r: SearchRun): Promise<SearchHit[]> {
  const floor = r.floor ?? NO_FLOOR;
  const langs = new Set<string>();
  for (const s of r.segments) for (const l of s.langs) langs.add(l);
  const query = analyseQuery(r.query, langs);
  const weights = idfs(r.segments, query.terms);
  const k = candidates(r.limit);
  const lexical = r.mode === 'vector' ? [] : rank(r.segments, query, weights, k, floor.minCoverage);
  const qv = r.queryVector ? await r.queryVector : undefined;
  let fused: Fused[];
  if (qv) {
    r.onVectors(r.segments);
    const wrong = r.segments.find(
      (s) => s.vectors?.model === qv.model && !comparable(s, qv.model, qv.vector.length),
    );
    if (wrong?.vectors) {
      r.onWrongDimension(
        new EmbeddingShapeError(
          `the query has ${qv.vector.length} dimensions, ${wrong.record.filename} has ${wrong.vectors.dims}`,
        ),
      );
    }
    const vector = vectorRank(r.segments, qv.model, qv.vector, k, floor.minCosine);
    fused = r.mode === 'vector' ? vectorOnly(vector) : fuse(lexical, vector);
  } else fused = r.mode === 'vector' ? [] : lexicalOnly(lexical);
  return toHits(r.segments, fused, weights, r.limit, r.budget);
}
