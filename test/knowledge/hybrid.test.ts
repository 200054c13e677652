// Vector and hybrid knowledge search on a real Neo4j with the test corpus, embedded by a hashing
// embedder (word overlap stands in for meaning; quality is measured with a real model elsewhere).
// What a person notices: hybrid answers with passages found both ways, an unrelated question finds
// nothing, a failing embedder still gets an answer (by words), another model's vectors are never
// compared, and a person who may see little still gets their best passage.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KnowledgeSettings } from '../../src/knowledge/settings.ts';
import type { KnowledgeItem } from '../../src/knowledge/types.ts';
import type { Embedder } from '../../src/llm/embeddings/embedder.ts';
import { EmbeddingFallbackLog } from '../../src/llm/embeddings/embedding-fallback.ts';
import { HashingEmbedder } from '../support/hashing-embedder.ts';
import { capturedLog } from './captured-log.ts';
import { type KgHarness, startKg, TEST_DIMENSIONS } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

const withVectors = (over: Partial<KnowledgeSettings['vectorSearch']> = {}): KnowledgeSettings => ({
  ...kg.settings,
  vectorSearch: { ...kg.settings.vectorSearch, minSimilarity: 0.3, ...over },
});

const hasVectorScore = (i: KnowledgeItem) => i.retrieval_scores.vector !== undefined;

test('hybrid fuses both searches: items carry fulltext, vector and fused scores, best fused first', async () => {
  const p = kg.provider({ embedder: kg.embedder, settings: withVectors() });
  const r = await p.retrieve(
    kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }),
  );
  assert.equal(r.retrieval_mode, 'hybrid');
  assert.ok(r.answerable);
  const top = r.items[0]?.retrieval_scores;
  assert.ok(top?.fulltext && top.vector && top.fused, JSON.stringify(top));
  for (const [n, item] of r.items.entries()) {
    assert.ok(item.retrieval_scores.fused !== undefined);
    if (n > 0)
      assert.ok(
        (r.items[n - 1]?.retrieval_scores.fused ?? 0) >= (item.retrieval_scores.fused ?? 0),
        'ordered by the fused score',
      );
  }
  const vector = await p.retrieve(
    kg.request('alice', 'order API timeout', { retrieval_mode: 'vector' }),
  );
  assert.equal(vector.retrieval_mode, 'vector');
  assert.ok(vector.items.every((i) => Object.keys(i.retrieval_scores).join() === 'vector'));
});

test('hybrid is the default mode with an embedder, and words-only without one', async () => {
  const { retrieval_mode: _, ...asked } = kg.request('alice', 'order API timeout');
  const withEmbedder = await kg
    .provider({ embedder: kg.embedder, settings: withVectors() })
    .retrieve(asked);
  assert.equal(withEmbedder.retrieval_mode, 'hybrid');
  const without = await kg.provider().retrieve({ ...asked, retrieval_mode: 'hybrid' });
  assert.equal(without.retrieval_mode, 'fulltext');
  assert.ok(without.answerable);
});

test('a question unrelated to the documents is not answerable, though it shares a word', async () => {
  const q = 'zebra quantum marmalade sunflower violin capacity';
  const words = await kg.provider().retrieve(kg.request('alice', q));
  assert.ok(words.answerable, 'fulltext alone returns the shared word as evidence');
  const p = kg.provider({ embedder: kg.embedder, settings: withVectors() });
  for (const mode of ['hybrid', 'vector'] as const) {
    const r = await p.retrieve(kg.request('alice', q, { retrieval_mode: mode }));
    assert.equal(r.retrieval_mode, mode);
    assert.equal(r.answerable, false, `${mode}: ${JSON.stringify(r.items[0])}`);
  }
  const related = await p.retrieve(
    kg.request('alice', 'capacity planning headroom for seasonal peaks', {
      retrieval_mode: 'hybrid',
    }),
  );
  assert.ok(related.answerable);
});

test('an embedder that is down: the answer comes by words, and the warning is logged once a minute', async () => {
  const down = new HashingEmbedder(TEST_DIMENSIONS, kg.embedder.id);
  down.failWith = new Error('embeddings endpoint answered 503');
  const { log, lines } = capturedLog();
  let now = 0;
  const p = kg.provider({
    embedder: down,
    settings: withVectors(),
    fallbackLog: new EmbeddingFallbackLog(log, 60_000, () => now),
  });
  for (const mode of ['hybrid', 'vector', 'hybrid'] as const) {
    const r = await p.retrieve(kg.request('alice', 'order API timeout', { retrieval_mode: mode }));
    assert.equal(r.retrieval_mode, 'fulltext');
    assert.ok(r.answerable && r.failure === undefined);
    assert.ok(r.items.every((i) => Object.keys(i.retrieval_scores).join() === 'fulltext'));
  }
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.what, 'knowledge search');
  now += 61_000;
  await p.retrieve(kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }));
  assert.equal(lines.length, 2, 'logged again after a minute');
});

test('a slow embedder: the search goes by words after embedTimeoutMs', async () => {
  const slow: Embedder = {
    id: kg.embedder.id,
    embed: (_texts, { signal }) =>
      new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
  };
  const { log, lines } = capturedLog();
  const p = kg.provider({ embedder: slow, settings: withVectors({ embedTimeoutMs: 150 }), log });
  const r = await p.retrieve(
    kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }),
  );
  assert.equal(r.retrieval_mode, 'fulltext');
  assert.ok(r.answerable);
  assert.match(lines[0]?.msg ?? '', /embeddings failed, searching by words only/);
});

test('a question vector of the wrong size is refused (by config, else by the index): words then', async () => {
  const small = new HashingEmbedder(64, kg.embedder.id);
  const byIndex = kg.provider({ embedder: small, settings: withVectors() });
  const sized = kg.provider({
    embedder: small,
    settings: { ...withVectors(), embeddingDimensions: TEST_DIMENSIONS },
  });
  for (const p of [byIndex, sized]) {
    const r = await p.retrieve(
      kg.request('alice', 'order API timeout', { retrieval_mode: 'vector' }),
    );
    assert.equal(r.retrieval_mode, 'fulltext');
    assert.ok(r.answerable && r.failure === undefined);
  }
});

test('vectors another model made are never compared with the question', async () => {
  // The same vectors under another name: compared, they would match perfectly.
  const renamed = new HashingEmbedder(TEST_DIMENSIONS, `another-model-${kg.corpus.tag}`);
  const p = kg.provider({ embedder: renamed, settings: withVectors() });
  const vector = await p.retrieve(
    kg.request('alice', 'order API timeout', { retrieval_mode: 'vector' }),
  );
  assert.equal(vector.retrieval_mode, 'fulltext', 'no chunk has its vectors: words');
  const hybrid = await p.retrieve(
    kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }),
  );
  assert.ok(hybrid.answerable);
  assert.ok(!hybrid.items.some(hasVectorScore), 'no similarity to another model’s vector');
  const same = await kg
    .provider({ embedder: kg.embedder, settings: withVectors() })
    .retrieve(kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }));
  assert.ok(same.items.every(hasVectorScore));
});
