// Cosine over the chunk vectors of the segments in reach — only those made by the embedder that
// made the query vector, with its dimension: vectors of two models are never compared.
import { keepTop, type Scored } from './bm25.ts';
import type { Segment } from './segment.ts';
import { chunkScore } from './vectors.ts';

/** Whether a segment's vectors can be compared with a query vector of `model` and `dims`. */
export function comparable(seg: Segment, model: string, dims: number): boolean {
  return seg.vectors !== undefined && seg.vectors.model === model && seg.vectors.dims === dims;
}

/**
 * The best `limit` chunks by their score against unit vector `q` (the cosine, with the best
 * sentence's when there are sentence vectors), at least `minCosine`; best first.
 */
export function vectorRank(
  segments: readonly Segment[],
  model: string,
  q: Float32Array,
  limit: number,
  minCosine = Number.NEGATIVE_INFINITY,
): Scored[] {
  const top: Scored[] = [];
  if (limit <= 0) return top;
  for (let si = 0; si < segments.length; si++) {
    const seg = segments[si] as Segment;
    if (!comparable(seg, model, q.length)) continue;
    const v = seg.vectors;
    if (!v) continue;
    for (let doc = 0; doc < seg.chunks.length; doc++) {
      const score = chunkScore(v, doc, q);
      if (score >= minCosine) keepTop(top, { segment: si, doc, score }, limit);
    }
  }
  return top;
}
