// The embedded embedding model with a real GGUF (all-MiniLM-L6-v2, TEST_EMBED_MODEL) behind its
// loopback server, as the bot's HTTP embedder and the OpenAI SDK see it. Assertions are about
// structure, and about meaning only where the model leaves no doubt (a refund question is closer
// to a refund sentence than to office hours).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type EmbeddedEmbeddings, startEmbeddedEmbeddings } from '../../src/llm/embedded/index.ts';
import { EmbeddingError } from '../../src/llm/embeddings/embedding-error.ts';
import { HttpEmbedder } from '../../src/llm/embeddings/http-embedder.ts';
import { createLogger } from '../../src/log/logger.ts';
import { startHarness } from '../support/harness.ts';
import { TEST_EMBED_THREADS, testEmbedModelPath } from './test-model.ts';

/** The id the server gives the model: its file's name (q8_0 in CI, f16 to compare), 384 dims. */
function modelId(): string {
  return `${path.basename(testEmbedModelPath(), '.gguf')}@384`;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

describe('the embedded embedding model (/v1/embeddings on loopback)', () => {
  let served: EmbeddedEmbeddings;
  let dataDir: string;
  let embedder: HttpEmbedder;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tm-embed-'));
    served = await startEmbeddedEmbeddings({
      model: testEmbedModelPath(),
      dataDir,
      threads: TEST_EMBED_THREADS,
      contextSize: 256,
      log: createLogger('silent'),
    });
    embedder = new HttpEmbedder({
      baseUrl: served.baseUrl,
      model: '',
      batchSize: 8,
      concurrency: 2,
      timeoutMs: 60_000,
    });
  });
  after(async () => {
    await served?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the bot’s embedder learns the model from /v1/models and ranks by meaning', async () => {
    const [query] = await embedder.embed(['how do I get my money back'], { purpose: 'query' });
    const docs = await embedder.embed(
      ['Refund requests go to the billing team.', 'The office is closed on Sundays.'],
      { purpose: 'document' },
    );
    assert.ok(query && docs[0] && docs[1]);
    assert.equal(query.length, 384);
    assert.equal(embedder.id, modelId());
    for (const v of [query, ...docs]) assert.ok(Math.abs(dot(v, v) - 1) < 1e-4, 'unit length');
    assert.ok(dot(query, docs[0]) > dot(query, docs[1]) + 0.2, 'the refund sentence is closer');
  });

  test('equal texts give equal vectors, in input order, whatever the batch', async () => {
    // More texts than the engine has contexts, of uneven lengths, so they finish out of order.
    const texts = [
      'alpha beta',
      'gamma delta '.repeat(40),
      'alpha beta',
      'epsilon',
      'refunds go to billing '.repeat(10),
    ];
    const together = await embedder.embed(texts, { purpose: 'document' });
    assert.ok(dot(together[0] as Float32Array, together[2] as Float32Array) > 0.9999);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text], { purpose: 'document' });
      assert.ok(dot(together[i] as Float32Array, alone as Float32Array) > 0.9999, `text ${i}`);
    }
  });

  test('a text longer than the context is cut and still embedded; an empty text gets a vector', async () => {
    const long = 'refunds are handled by billing '.repeat(200);
    const [cut, empty] = await embedder.embed([long, ''], { purpose: 'document' });
    assert.equal(cut?.length, 384);
    assert.equal(empty?.length, 384);
  });

  test('the OpenAI SDK gets base64 vectors and usage, as from vLLM', async () => {
    const client = new OpenAI({ baseURL: served.baseUrl, apiKey: 'unused', maxRetries: 0 });
    const res = await client.embeddings.create({
      model: served.engine.id,
      input: ['one text', 'another'],
    });
    assert.deepEqual(
      res.data.map((d) => [d.index, d.embedding.length]),
      [
        [0, 384],
        [1, 384],
      ],
    );
    assert.ok(res.usage.prompt_tokens >= 4, 'tokens counted, special tokens included');
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => m.id),
      [served.engine.id],
    );
  });

  test('another model or another dimension is refused; an embeddings-only server has no chat', async () => {
    const other = new HttpEmbedder({
      baseUrl: served.baseUrl,
      model: 'BAAI/bge-m3',
      batchSize: 8,
      concurrency: 1,
      timeoutMs: 10_000,
    });
    await assert.rejects(
      other.embed(['x'], { purpose: 'query' }),
      (err: unknown) => EmbeddingError.isEmbeddingError(err) && err.reason === 'unavailable',
    );
    const post = (route: string, body: unknown) =>
      fetch(`${served.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const dims = await post('/embeddings', { input: 'x', dimensions: 64 });
    assert.equal(dims.status, 400);
    const chat = await post('/chat/completions', { messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.status, 404);
    await chat.body?.cancel();
    await dims.body?.cancel();
  });
});

describe('the bot with LLM_EMBED_BASE_URL=embedded', () => {
  test('starts the embedding model on loopback and hands retrieval an embedder for it', async () => {
    const h = await startHarness({
      env: {
        LLM_EMBED_BASE_URL: 'embedded',
        LLM_EMBED_MODEL: testEmbedModelPath(),
      },
      overrides: { llm: { embed: { contextSize: 256, threads: TEST_EMBED_THREADS } } },
    });
    try {
      const embedder = h.app.embedder;
      assert.ok(embedder, 'an embedder is built');
      const [q, yes, no] = await embedder.embed(
        [
          'how do I get my money back',
          'Refund requests go to the billing team.',
          'The office is closed on Sundays.',
        ],
        { purpose: 'query' },
      );
      assert.ok(q && yes && no);
      assert.ok(dot(q, yes) > dot(q, no));
      assert.equal(embedder.id, modelId());
    } finally {
      await h.close();
    }
  });
});
