// A deterministic stand-in embedder for unit tests of retrieval plumbing (storage, fusion, fallback):
// hashed bags of lower-cased words, unit length. It knows no meaning: quality is measured with the
// real model by `npm run eval -- retrieval`, never with this.
import { createHash } from 'node:crypto';
import type { Embedder, EmbedOptions } from '../../src/llm/embeddings/embedder.ts';

export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  calls = 0;
  /** Set to make every call fail (an endpoint that is down). */
  failWith: Error | undefined;

  constructor(dims = 64, id = `hashing-${dims}`) {
    this.dims = dims;
    this.id = id;
  }

  async embed(texts: readonly string[], _opts: EmbedOptions): Promise<Float32Array[]> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    return texts.map((t) => this.vector(t));
  }

  vector(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const h = createHash('sha1').update(w).digest();
      const i = h.readUInt32LE(0) % this.dims;
      v[i] = (v[i] ?? 0) + ((h.readUInt8(4) & 1) === 1 ? 1 : -1);
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
    return v;
  }
}
