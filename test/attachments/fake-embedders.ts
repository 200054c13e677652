// Embedders whose vectors a test chooses, for the plumbing of hybrid search (fusion, isolation,
// fallback, model changes). They know no meaning: quality is measured with the real model by
// `npm run bench -- relevance` and the retrieval evaluation, never with these.
import type { Embedder, EmbedOptions } from '../../src/llm/embeddings/embedder.ts';

/** The vector of the first rule whose phrase the text contains (case-insensitive), else `rest`. */
export class TableEmbedder implements Embedder {
  readonly id: string;
  readonly calls: { texts: readonly string[]; purpose: string }[] = [];
  private readonly rules: readonly [string, readonly number[]][];
  private readonly rest: readonly number[];

  constructor(id: string, rules: [string, number[]][], rest: number[]) {
    this.id = id;
    this.rules = rules.map(([p, v]) => [p.toLowerCase(), v]);
    this.rest = rest;
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    this.calls.push({ texts, purpose: opts.purpose });
    return texts.map((t) => {
      const lower = t.toLowerCase();
      const hit = this.rules.find(([p]) => lower.includes(p));
      return Float32Array.from(hit ? hit[1] : this.rest);
    });
  }

  /** Texts embedded as documents so far. */
  documents(): string[] {
    return this.calls.filter((c) => c.purpose === 'document').flatMap((c) => c.texts);
  }
}

/** Fails the way a broken endpoint does: throws, answers too late, or in the wrong shape. */
export class BrokenEmbedder implements Embedder {
  readonly id = 'broken';
  calls = 0;
  private readonly how: 'throws' | 'hangs' | 'wrong-count' | 'mixed-dims';

  constructor(how: BrokenEmbedder['how']) {
    this.how = how;
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    this.calls++;
    switch (this.how) {
      case 'throws':
        throw new Error('connect ECONNREFUSED 127.0.0.1:9');
      case 'hangs':
        // Honours the signal like a fetch would; the index's own deadline fires first.
        return new Promise((_, reject) =>
          opts.signal?.addEventListener('abort', () => reject(opts.signal?.reason)),
        );
      case 'wrong-count':
        return [];
      case 'mixed-dims':
        return texts.map((_, i) => new Float32Array(i % 2 === 0 ? 4 : 3).fill(0.5));
    }
  }
}
