// The evaluation's vector cache: a second run with the same model embeds nothing it embedded
// before, reads the same vectors back, and another model (another id) or purpose misses it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CachedEmbedder } from '../../bench/eval/cached-embedder.ts';
import type { Embedder, EmbedOptions } from '../../src/llm/embeddings/embedder.ts';

/** Counts the texts it is asked to embed; the vector says which text and model it was. */
class CountingEmbedder implements Embedder {
  readonly id: string;
  embedded: string[] = [];
  constructor(id: string) {
    this.id = id;
  }
  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    this.embedded.push(...texts);
    return texts.map((t) =>
      Float32Array.of(t.length, opts.purpose === 'query' ? 1 : 0, this.id.length),
    );
  }
}

describe('evaluation vector cache', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tm-embed-cache-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a second run embeds only what the first did not, with the same vectors', async () => {
    const file = path.join(dir, 'vectors.jsonl');
    const first = await CachedEmbedder.open(new CountingEmbedder('m1'), file);
    const a = await first.embed(['alpha', 'beta', 'alpha'], { purpose: 'document' });
    assert.deepEqual(first.misses, 2);
    const inner = new CountingEmbedder('m1');
    const second = await CachedEmbedder.open(inner, file);
    const b = await second.embed(['alpha', 'beta', 'gamma'], { purpose: 'document' });
    assert.deepEqual(inner.embedded, ['gamma']);
    assert.deepEqual([second.hits, second.misses], [2, 1]);
    assert.deepEqual(Array.from(b[0] as Float32Array), Array.from(a[0] as Float32Array));
    assert.equal((await readFile(file, 'utf8')).trim().split('\n').length, 3);
  });

  test('another model or purpose is embedded for real', async () => {
    const file = path.join(dir, 'shared.jsonl');
    await (await CachedEmbedder.open(new CountingEmbedder('m1'), file)).embed(['x'], {
      purpose: 'document',
    });
    const other = new CountingEmbedder('model-2');
    const cache = await CachedEmbedder.open(other, file);
    await cache.embed(['x'], { purpose: 'document' });
    await cache.embed(['x'], { purpose: 'query' });
    assert.deepEqual(other.embedded, ['x', 'x']);
  });
});
