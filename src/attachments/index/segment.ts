// The inverted index of one file, and its chunk vectors when it has current ones. Files never
// change once added, so a segment is built once per process and reused whenever its owner's index
// is rebuilt for another file's sake; new vectors (another embedder) replace only that part.
import type { AttachmentRecord } from '../types.ts';
import type { Chunk } from './chunk.ts';
import { analyzerLang } from './language.ts';
import { timeSlicer } from './time-slice.ts';
import { tokenize } from './tokenize.ts';
import { type ChunkVectors, vectorBytes } from './vectors.ts';

export interface Segment {
  readonly record: AttachmentRecord;
  readonly chunks: readonly Chunk[];
  /** Terms per chunk (BM25 document length). */
  readonly lengths: Uint32Array;
  readonly totalLength: number;
  /** term → [chunk, tf, chunk, tf, …] with chunks ascending. */
  readonly postings: ReadonlyMap<string, readonly number[]>;
  /** Analyzer languages of the chunks: a query is read in each of them. */
  readonly langs: ReadonlySet<string>;
  /** One vector per chunk, made by `vectors.model`; absent when the file has none yet. */
  readonly vectors: ChunkVectors | undefined;
  /** Rough heap size of this segment in bytes, for the index cache's byte budget. */
  readonly bytes: number;
}

// Rough V8 costs, in bytes: a string's characters (two bytes each, to be safe for Hangul/CJK),
// a small object or array header, a Map entry, an array element (a small integer or a pointer).
const CHAR = 2;
const OBJECT = 64;
const MAP_ENTRY = 40;
const ELEMENT = 8;

/** Builds in time slices: a big file yields to other conversations while it is indexed. */
export async function buildSegment(
  record: AttachmentRecord,
  chunks: readonly Chunk[],
  vectors?: ChunkVectors,
): Promise<Segment> {
  const pause = timeSlicer();
  const postings = new Map<string, number[]>();
  const lengths = new Uint32Array(chunks.length);
  const langs = new Set<string>();
  let totalLength = 0;
  for (let doc = 0; doc < chunks.length; doc++) {
    const chunk = chunks[doc] as Chunk;
    langs.add(analyzerLang(chunk.lang));
    const terms = tokenize(chunk.text, chunk.lang);
    lengths[doc] = terms.length;
    totalLength += terms.length;
    // Docs arrive in order, so a term seen before in this doc is the last pair of its list.
    for (const term of terms) {
      const list = postings.get(term);
      if (!list) postings.set(term, [doc, 1]);
      else if (list[list.length - 2] === doc) list[list.length - 1] = (list.at(-1) as number) + 1;
      else list.push(doc, 1);
    }
    await pause();
  }
  let bytes = OBJECT * 2 + lengths.byteLength + CHAR * record.filename.length;
  for (const c of chunks) bytes += OBJECT + CHAR * (c.text.length + (c.heading?.length ?? 0));
  for (const [term, list] of postings) {
    bytes += MAP_ENTRY + OBJECT + CHAR * term.length + ELEMENT * list.length;
  }
  const usable = vectors && vectors.factors.length === chunks.length ? vectors : undefined;
  bytes += vectorBytes(usable);
  return { record, chunks, lengths, totalLength, postings, langs, vectors: usable, bytes };
}

/** The same segment with other vectors (or none), for a record whose vectors changed. */
export function withVectors(
  seg: Segment,
  record: AttachmentRecord,
  vectors: ChunkVectors | undefined,
): Segment {
  const usable = vectors && vectors.factors.length === seg.chunks.length ? vectors : undefined;
  const bytes = seg.bytes - vectorBytes(seg.vectors) + vectorBytes(usable);
  return { ...seg, record, vectors: usable, bytes };
}

/** A segment's text still describes `record` when it was built for the same upload of the file. */
export function segmentMatches(segment: Segment | undefined, record: AttachmentRecord): boolean {
  return (
    segment !== undefined &&
    segment.record.fileId === record.fileId &&
    segment.record.addedAt === record.addedAt &&
    segment.record.chunks === record.chunks
  );
}

/** …and its vectors too: the ones the record names (by embedder id), or none when it names none. */
export function vectorsMatch(segment: Segment, record: AttachmentRecord): boolean {
  return segment.record.vectors === record.vectors;
}
