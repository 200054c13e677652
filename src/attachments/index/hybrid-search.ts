// One search over the segments in reach: words (BM25, per language) and, when the query could be
// embedded, vectors — each ranking cut at its relevance floor, fused by reciprocal rank, and
// turned into passages within the character budget. With a reranker, the fused candidates (no
// floor) are rescored by it and its score is the floor; when it fails, the fused order stands.
import type { SearchHit } from '../types.ts';
import { idfs, type Ranked, rank } from './bm25.ts';
import { badResponse } from './embed-texts.ts';
import { type Fused, fuse, lexicalOnly, vectorOnly } from './fusion.ts';
import { analyseQuery } from './query-terms.ts';
import type { RelevanceFloor } from './relevance.ts';
import { type RerankStage, rerankFused } from './rerank-stage.ts';
import { type PassageBudget, toHits } from './search-hit.ts';
import type { Segment } from './segment.ts';
import { comparable, vectorRank } from './vector-rank.ts';
import { chunkScore } from './vectors.ts';

export type SearchMode = 'lexical' | 'vector' | 'hybrid';

export interface SearchOptions {
  /** Default: hybrid when the index has an embedder, else lexical. */
  mode?: SearchMode;
  /**
   * False keeps hits below the relevance floor (to measure ranking alone); other floors than the
   * index's may be given. Default true.
   */
  relevanceFloor?: boolean | RelevanceFloor;
  /** This search's character budget instead of the index's. */
  maxChars?: number;
  /** False gives every hit as a passage, even of a small file (to score chunks one by one). */
  wholeDocuments?: boolean;
  /** False keeps the first-stage order even when the index has a reranker. Default true. */
  rerank?: boolean;
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
  /** Called with the segments and the query vector's model, so stale vectors get replaced. */
  onVectors: (segments: readonly Segment[], model: string) => void;
  onWrongDimension: (err: Error) => void;
  /** The second stage; undefined: the fused order is final. */
  rerank?: RerankStage | undefined;
}

/** Candidates each ranking contributes to fusion: deep enough that fusion can reorder. */
function candidates(limit: number): number {
  return Math.max(40, limit * 4);
}

/** A chunk clears the floor when either ranking's measure of it does. */
function clears(f: Fused, floor: RelevanceFloor): boolean {
  return (
    (f.lexical !== undefined && f.lexical.coverage >= floor.minCoverage) ||
    (f.vector?.cosine ?? f.cosine ?? Number.NEGATIVE_INFINITY) >= floor.minCosine
  );
}

/**
 * Word-ranked chunks holding less than this share of the query's words (idf-weighted) do not vote
 * in fusion: for a question asked in other words they are the chunks that share one rare stray
 * word, and their rank would push the vector ranking's answer down. Those at the relevance floor
 * (0.5) still come after the fused ones: a question with a word no file holds (which weighs as a
 * rare one) may have its answer only there. Chosen on the retrieval evaluation's dev set (0.6–0.8 alike; hybrid
 * paraphrase recall@5 0.81 → 0.88, lexical unchanged at 1.00), held-out unchanged (ARCHITECTURE.md).
 */
export const VOTER_COVERAGE = 0.7;

/** The word-ranked chunks that vote in fusion: those at or above the voter share, when floored. */
function voters(lexical: readonly Ranked[], floor: RelevanceFloor | undefined): readonly Ranked[] {
  if (!floor) return lexical;
  const min = Math.max(floor.minCoverage, VOTER_COVERAGE);
  return lexical.filter((l) => l.coverage >= min);
}

/** The cosine of word-ranked chunks the vector ranking did not reach, where their file has vectors. */
function fillCosines(fused: Fused[], segments: readonly Segment[], qv: QueryVector): void {
  for (const f of fused) {
    if (f.vector) continue;
    const seg = segments[f.segment] as Segment;
    if (!seg.vectors || !comparable(seg, qv.model, qv.vector.length)) continue;
    f.cosine = chunkScore(seg.vectors, f.doc, qv.vector);
  }
}

/**
 * The word ranking holds every chunk with a query word; the vector ranking, every chunk whose
 * cosine clears the floor (without one, every chunk would be "found" by vectors, and fusion would
 * credit all of them). After fusion a chunk stays when either measure clears its floor; word-ranked
 * chunks the vector ranking did not reach get their cosine filled in for that.
 */
export async function runSearch(r: SearchRun): Promise<SearchHit[]> {
  const langs = new Set<string>();
  for (const s of r.segments) for (const l of s.langs) langs.add(l);
  const query = analyseQuery(r.query, langs);
  const weights = idfs(r.segments, query.terms);
  const k = candidates(r.limit);
  const lexical = r.mode === 'vector' ? [] : rank(r.segments, query, weights, k);
  const qv = await r.queryVector; // undefined when there is none, or it failed
  if (qv) checkVectors(r, qv);
  if (r.rerank) {
    // The reranker sees the candidates before any floor: its own score is the floor.
    const stage = { ...r.rerank, minScore: r.floor ? r.rerank.minScore : undefined };
    const reranked = await rerankFused(stage, r.segments, r.query, firstStage(r, lexical, qv, k));
    if (reranked) return toHits(r.segments, reranked, weights, r.limit, r.budget);
  }
  const fused = firstStage(r, lexical, qv, k, r.floor);
  const floor = r.floor;
  const kept = floor ? fused.filter((f) => clears(f, floor)) : fused;
  return toHits(r.segments, kept, weights, r.limit, r.budget);
}

/** Stale vectors are replaced, and a query of another dimension than a file's is reported. */
function checkVectors(r: SearchRun, qv: QueryVector): void {
  r.onVectors(r.segments, qv.model);
  const wrong = r.segments.find(
    (s) => s.vectors?.model === qv.model && !comparable(s, qv.model, qv.vector.length),
  );
  if (wrong?.vectors) {
    r.onWrongDimension(
      badResponse(
        `the query has ${qv.vector.length} dimensions, ${wrong.record.filename} has ${wrong.vectors.dims}`,
      ),
    );
  }
}

/** The mode's ranking: words, vectors or both fused; each cut at its floor when one is given. */
function firstStage(
  r: SearchRun,
  lexical: readonly Ranked[],
  qv: QueryVector | undefined,
  k: number,
  floor?: RelevanceFloor,
): Fused[] {
  if (!qv) return r.mode === 'vector' ? [] : lexicalOnly(lexical);
  const vector = vectorRank(r.segments, qv.model, qv.vector, k, floor?.minCosine);
  if (r.mode === 'vector') return vectorOnly(vector);
  const voting = voters(lexical, floor);
  const fused = fuse(voting, vector);
  if (floor && voting.length < lexical.length) fused.push(...nonVoters(fused, lexical, floor));
  if (r.mode === 'hybrid' && floor) fillCosines(fused, r.segments, qv);
  return fused;
}

/** Word-ranked chunks at the relevance floor that did not vote and fusion did not hold, in order. */
function nonVoters(fused: readonly Fused[], lexical: readonly Ranked[], floor: RelevanceFloor) {
  const held = new Set(fused.map((f) => `${f.segment}:${f.doc}`));
  return lexicalOnly(lexical)
    .filter((f) => (f.lexical?.coverage ?? 0) >= floor.minCoverage)
    .filter((f) => !held.has(`${f.segment}:${f.doc}`))
    .map((f) => ({ ...f, score: 0 }));
}
