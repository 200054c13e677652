// A vector for each sentence of a chunk, beside the chunk's own. A question asked in other words
// usually matches one sentence of the passage that answers it, and a small embedder (trained on
// short texts) blurs that sentence in the ~800 characters of its chunk; the sentence's own vector
// does not. A chunk's score is the mean of its own cosine and its best sentence's: the sentence
// finds the answer, the chunk keeps the context (a sentence alone ranked stray one-liners first).
// Measured on the retrieval evaluation's dev set (`npm run eval -- retrieval`); see ARCHITECTURE.md.
import type { Chunk } from './chunk.ts';
import { sentenceSpans } from './sentences.ts';

/** The sentence vectors of one file's chunks, int8 rows as in ChunkVectors. */
export interface SentenceVectors {
  /** Chunk i's sentences are rows starts[i] … starts[i + 1] - 1; a one-sentence chunk has none. */
  readonly starts: Uint32Array;
  readonly data: Int8Array;
  readonly factors: Float32Array;
}

/** The store's form of SentenceVectors (base64, beside the chunk vectors). */
export interface StoredSentenceVectors {
  count: number;
  /** Uint32 little-endian row offsets, chunks + 1 of them. */
  starts: string;
  data: string;
  factors: string;
}

/**
 * Sentences embedded per chunk at most: prose has 4–8 in ~800 characters; text without sentence
 * ends (code, tables) falls back to lines, which are not worth a vector each.
 */
export const MAX_SENTENCES_PER_CHUNK = 16;

/** A sentence longer than this is cut for embedding (as a chunk is, at a larger size). */
const MAX_SENTENCE_CHARS = 1000;

/**
 * What is embedded for each sentence of a chunk: the heading, as for the chunk, and the sentence.
 * None for a chunk of one sentence (its own vector says the same).
 */
export function sentenceTexts(chunk: Chunk): string[] {
  const spans = sentenceSpans(chunk.text);
  if (spans.length < 2) return [];
  const prefix = chunk.heading ? `${chunk.heading}\n` : '';
  return spans
    .slice(0, MAX_SENTENCES_PER_CHUNK)
    .map(
      (s) => `${prefix}${chunk.text.slice(s.start, Math.min(s.end, s.start + MAX_SENTENCE_CHARS))}`,
    );
}

/** Row offsets for chunks with `counts[i]` sentence vectors each. */
export function sentenceStarts(counts: readonly number[]): Uint32Array {
  const starts = new Uint32Array(counts.length + 1);
  for (const [i, n] of counts.entries()) starts[i + 1] = (starts[i] as number) + n;
  return starts;
}

/** The best cosine of unit query `q` with chunk `i`'s sentences; undefined when it has none. */
export function bestSentenceCosine(
  s: SentenceVectors,
  dims: number,
  i: number,
  q: Float32Array,
): number | undefined {
  const from = s.starts[i] ?? 0;
  const to = s.starts[i + 1] ?? from;
  let best: number | undefined;
  for (let row = from; row < to; row++) {
    const base = row * dims;
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += (q[d] as number) * (s.data[base + d] as number);
    const cosine = dot * (s.factors[row] as number);
    if (best === undefined || cosine > best) best = cosine;
  }
  return best;
}

export function encodeSentenceVectors(s: SentenceVectors): StoredSentenceVectors {
  const starts = Buffer.alloc(s.starts.length * 4);
  for (const [i, x] of s.starts.entries()) starts.writeUInt32LE(x, i * 4);
  const factors = Buffer.alloc(s.factors.length * 4);
  for (const [i, f] of s.factors.entries()) factors.writeFloatLE(f, i * 4);
  return {
    count: s.factors.length,
    starts: starts.toString('base64'),
    data: Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength).toString('base64'),
    factors: factors.toString('base64'),
  };
}

/** Undefined when the stored value is not well-formed for `chunks` chunks of `dims` dimensions. */
export function decodeSentenceVectors(
  value: unknown,
  chunks: number,
  dims: number,
): SentenceVectors | undefined {
  const s = value as Partial<StoredSentenceVectors> | undefined;
  if (
    !s ||
    typeof s.count !== 'number' ||
    typeof s.starts !== 'string' ||
    typeof s.data !== 'string' ||
    typeof s.factors !== 'string'
  )
    return undefined;
  const sbytes = Buffer.from(s.starts, 'base64');
  const bytes = Buffer.from(s.data, 'base64');
  const fbytes = Buffer.from(s.factors, 'base64');
  if (sbytes.length !== (chunks + 1) * 4) return undefined;
  if (bytes.length !== s.count * dims || fbytes.length !== s.count * 4) return undefined;
  const starts = new Uint32Array(chunks + 1);
  for (let i = 0; i <= chunks; i++) {
    starts[i] = sbytes.readUInt32LE(i * 4);
    if (i > 0 && (starts[i] as number) < (starts[i - 1] as number)) return undefined;
  }
  if (starts[0] !== 0 || starts[chunks] !== s.count) return undefined;
  const data = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice();
  const factors = new Float32Array(s.count);
  for (let i = 0; i < s.count; i++) factors[i] = fbytes.readFloatLE(i * 4);
  return { starts, data, factors };
}
