// Chunk vectors, quantised to int8 with one factor per vector. A 384-dimension vector takes 388
// bytes instead of 1,536 as float32 (512 + 8 characters of base64 in the store instead of 2,048),
// the whole set of an owner's vectors stays in memory for search, and the dot product runs over
// bytes. Rounding to 127 levels per vector moves a cosine by about 0.002 and rarely swaps two
// neighbours: `npm run bench -- search` measures recall@10 against float32. Sentence vectors
// (sentence-vectors.ts), when made, are kept the same way beside the chunk vectors.
import {
  bestSentenceCosine,
  decodeSentenceVectors,
  encodeSentenceVectors,
  type SentenceVectors,
  type StoredSentenceVectors,
} from './sentence-vectors.ts';

/** The vectors of one file's chunks, in chunk order, as search uses them. */
export interface ChunkVectors {
  /** The embedder id they were made with; never compared with another id's vectors. */
  readonly model: string;
  readonly dims: number;
  /** count × dims components, each vector scaled so its largest component is ±127. */
  readonly data: Int8Array;
  /** Per vector: 1 / the norm of its int8 components, so dot × factor is a cosine. */
  readonly factors: Float32Array;
  /** One vector per sentence of each chunk of several sentences; absent: chunk vectors only. */
  readonly sentences?: SentenceVectors;
}

/** The store's form: base64, JSON-safe on SQLite and Redis alike. */
export interface StoredVectors {
  model: string;
  dims: number;
  count: number;
  /** Int8 components, base64. */
  data: string;
  /** Float32 little-endian factors, base64. */
  factors: string;
  sentences?: StoredSentenceVectors;
}

/** Int8 rows of `vectors` (unit length), each scaled so its largest component is ±127. */
function quantiseRows(vectors: readonly Float32Array[], dims: number) {
  const data = new Int8Array(vectors.length * dims);
  const factors = new Float32Array(vectors.length);
  for (const [i, v] of vectors.entries()) {
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const scale = max > 0 ? 127 / max : 0;
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      const q = Math.round((v[d] as number) * scale);
      data[i * dims + d] = q;
      norm += q * q;
    }
    factors[i] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }
  return { data, factors };
}

/** `sentences`: the sentence vectors of each chunk, in chunk order, with their row offsets. */
export function quantise(
  model: string,
  vectors: readonly Float32Array[],
  sentences?: { starts: Uint32Array; vectors: readonly Float32Array[] },
): ChunkVectors {
  const dims = vectors[0]?.length ?? 0;
  const { data, factors } = quantiseRows(vectors, dims);
  if (!sentences) return { model, dims, data, factors };
  const rows = quantiseRows(sentences.vectors, dims);
  return { model, dims, data, factors, sentences: { starts: sentences.starts, ...rows } };
}

export function encodeVectors(v: ChunkVectors): StoredVectors {
  const factors = Buffer.alloc(v.factors.length * 4);
  for (const [i, f] of v.factors.entries()) factors.writeFloatLE(f, i * 4);
  return {
    model: v.model,
    dims: v.dims,
    count: v.factors.length,
    data: Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength).toString('base64'),
    factors: factors.toString('base64'),
    ...(v.sentences ? { sentences: encodeSentenceVectors(v.sentences) } : {}),
  };
}

/** Undefined when the stored value is not a well-formed vector set of `count` vectors. */
export function decodeVectors(value: unknown, count: number): ChunkVectors | undefined {
  const s = value as Partial<StoredVectors> | undefined;
  if (
    !s ||
    typeof s.model !== 'string' ||
    typeof s.dims !== 'number' ||
    s.count !== count ||
    typeof s.data !== 'string' ||
    typeof s.factors !== 'string'
  )
    return undefined;
  const bytes = Buffer.from(s.data, 'base64');
  const fbytes = Buffer.from(s.factors, 'base64');
  if (bytes.length !== count * s.dims || fbytes.length !== count * 4) return undefined;
  const data = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice();
  const factors = new Float32Array(count);
  for (let i = 0; i < count; i++) factors[i] = fbytes.readFloatLE(i * 4);
  // Malformed sentence vectors leave the chunk vectors usable on their own.
  const sentences = decodeSentenceVectors(s.sentences, count, s.dims);
  return { model: s.model, dims: s.dims, data, factors, ...(sentences ? { sentences } : {}) };
}

/** The unit vector of `v` (a copy); zero stays zero. */
export function normalised(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const out = new Float32Array(v.length);
  if (norm === 0) return out;
  const k = 1 / Math.sqrt(norm);
  for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) * k;
  return out;
}

/** Cosine of unit query `q` with vector `i` of `v` (same dimension). */
export function cosineAt(v: ChunkVectors, i: number, q: Float32Array): number {
  const { data, dims } = v;
  const base = i * dims;
  let dot = 0;
  for (let d = 0; d < dims; d++) dot += (q[d] as number) * (data[base + d] as number);
  return dot * (v.factors[i] as number);
}

/**
 * How well chunk `i` matches unit query `q`: its cosine, or with sentence vectors the mean of that
 * and its best sentence's cosine (see sentence-vectors.ts).
 */
export function chunkScore(v: ChunkVectors, i: number, q: Float32Array): number {
  const cosine = cosineAt(v, i, q);
  const best = v.sentences ? bestSentenceCosine(v.sentences, v.dims, i, q) : undefined;
  return best === undefined ? cosine : (cosine + best) / 2;
}

/** Heap bytes a vector set holds. */
export function vectorBytes(v: ChunkVectors | undefined): number {
  if (!v) return 0;
  const s = v.sentences;
  const sentences = s ? s.starts.byteLength + s.data.byteLength + s.factors.byteLength + 64 : 0;
  return v.data.byteLength + v.factors.byteLength + 64 + sentences;
}
