// The second stage of a search: a cross-encoder rescores the first stage's best candidates (the
// fused order, before any floor) and its score replaces both order and floor. Words and cosines
// cannot tell "the files do not say" from "the files say it in other words" (an unanswerable
// question's best cosine sits as high as a paraphrased answer's); a cross-encoder reads question
// and passage together, so its score can. When the reranker fails or is too slow, the search keeps
// the fused order and the first-stage floors (logged at most once a minute).

import type { RerankFallbackLog } from '../../llm/rerank/rerank-fallback.ts';
import type { Reranker } from '../../llm/rerank/reranker.ts';
import type { Chunk } from './chunk.ts';
import type { Fused } from './fusion.ts';
import type { Segment } from './segment.ts';

export interface RerankStage {
  reranker: Reranker;
  /** First-stage candidates rescored per search. */
  candidates: number;
  /** Score a candidate needs to count as an answer; undefined: rerank only, no floor. */
  minScore: number | undefined;
  fallback: RerankFallbackLog;
}

/** What the cross-encoder reads of a chunk: its heading (where it is) and its text. */
export function rerankText(chunk: Chunk): string {
  return chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text;
}

/**
 * The first `stage.candidates` of `fused` in the reranker's order, each with its score, those
 * below the floor left out; undefined when the reranker failed (the caller keeps its own order).
 */
export async function rerankFused(
  stage: RerankStage,
  segments: readonly Segment[],
  query: string,
  fused: readonly Fused[],
): Promise<Fused[] | undefined> {
  const top = fused.slice(0, stage.candidates);
  if (top.length === 0) return [];
  const texts = top.map((f) => rerankText((segments[f.segment] as Segment).chunks[f.doc] as Chunk));
  let scores: number[];
  try {
    scores = await stage.reranker.rerank(query, texts);
  } catch (err) {
    stage.fallback.fellBack('attachment search', err);
    return undefined;
  }
  const scored = top.map((f, i) => {
    const score = scores[i] ?? 0;
    return { ...f, score, rerank: { rank: 0, score, before: i + 1 } };
  });
  // Ties keep the first stage's order.
  scored.sort((a, b) => b.score - a.score || a.rerank.before - b.rerank.before);
  for (const [i, f] of scored.entries()) f.rerank.rank = i + 1;
  const floor = stage.minScore;
  return floor === undefined ? scored : scored.filter((f) => f.score >= floor);
}
