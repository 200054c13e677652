// POST /v1/rerank of the embedded server as the bot's HTTP reranker and curl see it: vLLM's
// answer shape (best first, each with its index, document and relevance_score, usage), top_n,
// the model named or not, and vLLM's 400/404s. No cross-encoder GGUF is available to the test
// suite, so the ranking model behind the route is a stand-in with a fixed, visible rule (the share
// of the question's words a passage holds); what is tested is the route, not a model.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RankedScores, RankingModel } from '../../src/llm/embedded/ranking-engine.ts';
import { type EmbeddedServer, startEmbeddedServer } from '../../src/llm/embedded/server.ts';
import { HttpReranker } from '../../src/llm/rerank/http-reranker.ts';
import { createLogger } from '../../src/log/logger.ts';
import { emulatorRelevance } from '../emulators/openai/index.ts';

const standIn: RankingModel = {
  id: 'bge-reranker-v2-m3-Q8_0',
  contextSize: 512,
  async rank(query: string, documents: readonly string[]): Promise<RankedScores> {
    return {
      scores: documents.map((d) => emulatorRelevance(query, d)),
      tokens: query.length + documents.join('').length,
    };
  },
};

const QUERY = 'when is the cancellation deadline';
const DOCS = [
  'The cafeteria opens at eight.',
  'The cancellation deadline is noon.',
  'When is the cancellation deadline? Noon on Friday.',
];

describe('the embedded ranking route (/v1/rerank on loopback)', () => {
  let server: EmbeddedServer;
  const post = (path: string, body: unknown) =>
    fetch(`${server.baseUrl.replace(/\/v1$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    server = await startEmbeddedServer({ ranking: standIn, port: 0, log: createLogger('silent') });
  });
  after(() => server.close());

  test('vLLM’s answer: best first, index, document, relevance_score, usage; top_n keeps the best', async () => {
    const res = await post('/v1/rerank', { model: standIn.id, query: QUERY, documents: DOCS });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      model: string;
      usage: { total_tokens: number };
      results: { index: number; document: { text: string }; relevance_score: number }[];
    };
    assert.equal(body.model, standIn.id);
    assert.deepEqual(
      body.results.map((r) => r.index),
      [2, 1, 0],
    );
    assert.equal(body.results[0]?.document.text, DOCS[2]);
    assert.equal(body.results[0]?.relevance_score, 1);
    assert.ok(body.usage.total_tokens > 0);
    const top = (await (
      await post('/rerank', { query: QUERY, documents: DOCS, top_n: 1 })
    ).json()) as { results: { index: number }[] };
    assert.deepEqual(
      top.results.map((r) => r.index),
      [2],
    );
  });

  test('the bot’s reranker gets one score per passage, in the passages’ order', async () => {
    const reranker = new HttpReranker({
      baseUrl: server.baseUrl,
      model: '',
      timeoutMs: 5000,
      concurrency: 1,
    });
    const scores = await reranker.rerank(QUERY, DOCS);
    assert.deepEqual(
      scores,
      DOCS.map((d) => emulatorRelevance(QUERY, d)),
    );
    assert.equal(reranker.id, standIn.id, 'learnt from /v1/models');
  });

  test('another model is a 404, a body without documents a 400, as vLLM answers', async () => {
    const other = await post('/v1/rerank', { model: 'ms-marco', query: QUERY, documents: DOCS });
    assert.equal(other.status, 404);
    const none = await post('/v1/rerank', { query: QUERY, documents: [] });
    assert.equal(none.status, 400);
    const numbers = await post('/v1/rerank', { query: QUERY, documents: [1, 2] });
    assert.equal(numbers.status, 400);
    const embed = await post('/v1/embeddings', { input: 'x' });
    assert.equal(embed.status, 404, 'a ranking server embeds nothing');
  });
});
