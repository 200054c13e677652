// Knowledge search with a reranker (the HTTP client against the vLLM emulator's /v1/rerank) on a
// real Neo4j: the permitted items come back in the reranker's order with its score, never an item
// more than without it (the reranker only reads what the final ACL check let through); a reranker
// that is down leaves the order as it was, and the log says so once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HttpReranker } from '../../src/llm/rerank/http-reranker.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { capturedLog } from './captured-log.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

const MODEL = { id: 'BAAI/bge-reranker-v2-m3', max_model_len: 8192 };
let kg: KgHarness;
let emu: OpenAIEmulator;
before(async () => {
  kg = await startKg();
  emu = await startOpenAIEmulator({ models: [], rerankModels: [MODEL] });
});
after(async () => {
  await emu?.close();
  await kg?.close();
});

const reranker = () =>
  new HttpReranker({ baseUrl: emu.baseURL, model: MODEL.id, timeoutMs: 2000, concurrency: 1 });

const QUESTION = 'order API timeout retry';

test('the permitted items in the reranker’s order, each with its score, and no item more', async () => {
  const plain = await kg.provider().retrieve(kg.request('alice', QUESTION));
  assert.ok(plain.items.length >= 2, 'the corpus answers the question');
  const r = await kg.provider({ reranker: reranker() }).retrieve(kg.request('alice', QUESTION));
  assert.ok(r.answerable);
  const ids = (items: typeof r.items) => items.map((i) => `${i.chunk_id}|${i.claim_id}`).sort();
  assert.deepEqual(ids(r.items), ids(plain.items), 'the same permitted items');
  for (const [n, item] of r.items.entries()) {
    assert.ok(item.retrieval_scores.rerank !== undefined, 'scored by the reranker');
    if (n > 0)
      assert.ok(
        (r.items[n - 1]?.retrieval_scores.rerank ?? 0) >= (item.retrieval_scores.rerank ?? 0),
        'in the reranker’s order',
      );
  }
  const asked = emu.requests.filter((q) => q.path === '/v1/rerank');
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.body.query, QUESTION);
});

test('a reranker that is down: the order without it, and one warning', async () => {
  const { log, lines } = capturedLog();
  const plain = await kg.provider().retrieve(kg.request('alice', QUESTION));
  emu.setDown(true);
  try {
    const p = kg.provider({ reranker: reranker(), log });
    for (let i = 0; i < 2; i++) {
      const r = await p.retrieve(kg.request('alice', QUESTION));
      assert.deepEqual(
        r.items.map((x) => x.chunk_id),
        plain.items.map((x) => x.chunk_id),
      );
      assert.ok(r.items.every((x) => x.retrieval_scores.rerank === undefined));
    }
  } finally {
    emu.setDown(false);
  }
  const warnings = lines.filter((l) => /reranking failed/.test(l.msg));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.what, 'knowledge search');
});
