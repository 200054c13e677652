// The inverted index of one file. Files never change once added, so a segment is built once per
// process and reused whenever its owner's index is rebuilt for another file's sake.
import type { AttachmentRecord } from '../types.ts';
import type { Chunk } from './chunk.ts';
import { tokenize } from './tokenize.ts';

export interface Segment {
  readonly record: AttachmentRecord;
  readonly chunks: readonly Chunk[];
  /** Terms per chunk (BM25 document length). */
  readonly lengths: Uint32Array;
  readonly totalLength: number;
  /** term → [chunk, tf, chunk, tf, …] with chunks ascending. */
  readonly postings: ReadonlyMap<string, readonly number[]>;
}

export function buildSegment(record: AttachmentRecord, chunks: readonly Chunk[]): Segment {
  const postings = new Map<string, number[]>();
  const lengths = new Uint32Array(chunks.length);
  let totalLength = 0;
  for (let doc = 0; doc < chunks.length; doc++) {
    const terms = tokenize((chunks[doc] as Chunk).text);
    lengths[doc] = terms.length;
    totalLength += terms.length;
    // Docs arrive in order, so a term seen before in this doc is the last pair of its list.
    for (const term of terms) {
      const list = postings.get(term);
      if (!list) postings.set(term, [doc, 1]);
      else if (list[list.length - 2] === doc) list[list.length - 1] = (list.at(-1) as number) + 1;
      else list.push(doc, 1);
    }
  }
  return { record, chunks, lengths, totalLength, postings };
}

/** A segment still describes `record` when it was built for the same upload of the same file. */
export function segmentMatches(segment: Segment | undefined, record: AttachmentRecord): boolean {
  return (
    segment !== undefined &&
    segment.record.fileId === record.fileId &&
    segment.record.addedAt === record.addedAt &&
    segment.record.chunks === record.chunks
  );
}
