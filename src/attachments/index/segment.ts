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
  /** Rough heap size of this segment in bytes, for the index cache's byte budget. */
  readonly bytes: number;
}

// Rough V8 costs, in bytes: a string's characters (two bytes each, to be safe for Hangul/CJK),
// a small object or array header, a Map entry, an array element (a small integer or a pointer).
const CHAR = 2;
const OBJECT = 64;
const MAP_ENTRY = 40;
const ELEMENT = 8;

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
  let bytes = OBJECT * 2 + lengths.byteLength + CHAR * record.filename.length;
  for (const c of chunks) bytes += OBJECT + CHAR * (c.text.length + (c.heading?.length ?? 0));
  for (const [term, list] of postings) {
    bytes += MAP_ENTRY + OBJECT + CHAR * term.length + ELEMENT * list.length;
  }
  return { record, chunks, lengths, totalLength, postings, bytes };
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
