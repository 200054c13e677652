import type { SearchHit } from '../types.ts';
import type { Ranked } from './bm25.ts';
import type { Chunk } from './chunk.ts';
import type { Segment } from './segment.ts';
import { makeSnippet } from './snippet.ts';

/** A ranked chunk as the search tool reports it: where it is, whose it is, and what it says. */
export function toHit(
  segments: readonly Segment[],
  r: Ranked,
  weights: ReadonlyMap<string, number>,
): SearchHit {
  const seg = segments[r.segment] as Segment;
  const chunk = seg.chunks[r.doc] as Chunk;
  const hit: SearchHit = {
    owner: { ...seg.record.owner },
    fileId: seg.record.fileId,
    filename: seg.record.filename,
    snippet: makeSnippet(chunk.text, weights),
    start: chunk.start,
    end: chunk.end,
    score: r.score,
  };
  if (seg.record.link !== undefined) hit.link = seg.record.link;
  if (chunk.page !== undefined) hit.page = chunk.page;
  if (chunk.heading !== undefined) hit.heading = chunk.heading;
  return hit;
}
