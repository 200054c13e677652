// Keeps the evaluation's vectors in a file between runs (`--embed-cache <file>`): a change to
// fusion, floors or scoring is then measured in seconds instead of re-embedding every passage on
// a shared CPU. Vectors are keyed by the embedder's id, the purpose and the exact text, so another
// model, prefix or chunking misses the cache and is embedded for real. Ingest timings of a run
// that hit the cache say nothing about embedding speed; the runner prints how many texts it hit.
import { appendFile, readFile } from 'node:fs/promises';
import type { Embedder, EmbedOptions } from '../../src/llm/embeddings/embedder.ts';

type Line = [key: string, vector: number[]];

export class CachedEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number | undefined;
  hits = 0;
  misses = 0;
  private readonly inner: Embedder;
  private readonly file: string;
  private readonly vectors: Map<string, Float32Array>;

  private constructor(inner: Embedder, file: string, vectors: Map<string, Float32Array>) {
    this.inner = inner;
    this.id = inner.id;
    this.dimensions = inner.dimensions;
    this.file = file;
    this.vectors = vectors;
  }

  /** Reads `file` (one JSON line per vector; missing: empty) and wraps `inner`. */
  static async open(inner: Embedder, file: string): Promise<CachedEmbedder> {
    const vectors = new Map<string, Float32Array>();
    const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    for (const line of text.split('\n')) {
      if (!line) continue;
      const [key, vector] = JSON.parse(line) as Line;
      vectors.set(key, Float32Array.from(vector));
    }
    return new CachedEmbedder(inner, file, vectors);
  }

  private key(text: string, opts: EmbedOptions): string {
    return JSON.stringify([this.id, opts.purpose, text]);
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.vectors.has(this.key(t, opts))))];
    this.hits += texts.length - missing.length;
    this.misses += missing.length;
    if (missing.length > 0) {
      const made = await this.inner.embed(missing, opts);
      const lines: string[] = [];
      for (const [i, text] of missing.entries()) {
        const v = made[i];
        if (!v)
          throw new Error(`the embedder gave ${made.length} vectors for ${missing.length} texts`);
        const key = this.key(text, opts);
        this.vectors.set(key, v);
        lines.push(JSON.stringify([key, Array.from(v)] satisfies Line));
      }
      await appendFile(this.file, `${lines.join('\n')}\n`);
    }
    return texts.map((t) => this.vectors.get(this.key(t, opts)) as Float32Array);
  }
}
