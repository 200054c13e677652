// The answer of an OpenAI-compatible `POST /embeddings`, checked before anything is kept: one
// vector per input, each at its `index`, finite numbers (a JSON array, or base64 of little-endian
// float32 when `encoding_format: "base64"` was asked), all of one dimension.
import { EmbeddingError } from './embedding-error.ts';

interface EmbeddingItem {
  index?: unknown;
  embedding?: unknown;
}

function bad(message: string): EmbeddingError {
  return new EmbeddingError('bad_response', message);
}

function decodeVector(raw: unknown, at: number): Float32Array {
  if (typeof raw === 'string') {
    const bytes = Buffer.from(raw, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0)
      throw bad(`embedding ${at} is not base64 of float32 values`);
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  if (!Array.isArray(raw) || raw.length === 0)
    throw bad(`embedding ${at} is not a list of numbers`);
  const out = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const x: unknown = raw[i];
    if (typeof x !== 'number') throw bad(`embedding ${at} holds a value that is not a number`);
    out[i] = x;
  }
  return out;
}

/** Scales to unit length in place; a vector of zeros or non-finite values is no embedding. */
export function normalize(v: Float32Array, at = 0): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (!Number.isFinite(sum) || sum === 0)
    throw bad(`embedding ${at} is all zeros or not finite numbers`);
  const norm = Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/**
 * The vectors of one response, in input order and unit length. `dims` is the dimension every
 * vector must have (the first one seen by this embedder), or undefined when none was seen yet.
 */
export function parseEmbeddings(
  body: unknown,
  expected: number,
  dims: number | undefined,
): Float32Array[] {
  const data =
    typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw bad('the answer has no `data` list');
  if (data.length !== expected)
    throw bad(`asked for ${expected} embeddings, the answer has ${data.length}`);
  const out: (Float32Array | undefined)[] = new Array(expected).fill(undefined);
  let want = dims;
  data.forEach((item: EmbeddingItem, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= expected || out[index] !== undefined)
      throw bad(`embedding ${position} has a missing or repeated index`);
    const v = decodeVector(item.embedding, index);
    want ??= v.length;
    if (v.length !== want)
      throw bad(`embedding ${index} has ${v.length} dimensions where ${want} were expected`);
    out[index] = normalize(v, index);
  });
  return out as Float32Array[];
}
