// The HTTP embedder against the OpenAI emulator's /v1/embeddings: what retrieval gets (unit
// vectors in order, one per text), how it asks (bounded batches and concurrency, the model named,
// prefixes per model), and that every way the endpoint can fail becomes a coded EmbeddingError.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { EmbeddingError } from '../../src/llm/embeddings/embedding-error.ts';
import { HttpEmbedder, type HttpEmbedderOptions } from '../../src/llm/embeddings/http-embedder.ts';
import {
  emulatorEmbedding,
  type OpenAIEmulator,
  startOpenAIEmulator,
} from '../emulators/openai/index.ts';

const MODEL = { id: 'BAAI/bge-m3', dimensions: 32, max_model_len: 8192 };

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

async function rejectsWith(p: Promise<unknown>, reason: EmbeddingError['reason']) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(EmbeddingError.isEmbeddingError(err), `not an EmbeddingError: ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    assert.equal(err.code, `embedding_${reason}`);
    return true;
  });
}

describe('HttpEmbedder', () => {
  let emu: OpenAIEmulator;
  const make = (o: Partial<HttpEmbedderOptions> = {}) =>
    new HttpEmbedder({
      baseUrl: emu.baseURL,
      model: '',
      batchSize: 4,
      concurrency: 2,
      timeoutMs: 2000,
      ...o,
    });
  const embeddingRequests = () => emu.requests.filter((r) => r.path === '/v1/embeddings');

  before(async () => {
    emu = await startOpenAIEmulator({ models: [], embeddingModels: [MODEL] });
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.requests.length = 0;
    emu.setDown(false);
    emu.setEmbeddingReply({});
    emu.setEmbeddingModels([MODEL]);
  });

  test('returns one unit vector per text, in order, learning the model and dimension for its id', async () => {
    const e = make();
    assert.match(e.id, /@\?$/, 'before any answer the id matches no stored vector');
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i} about refunds`);
    const vectors = await e.embed(texts, { purpose: 'document' });
    assert.equal(vectors.length, 10);
    for (const [i, v] of vectors.entries()) {
      assert.equal(v.length, 32);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
      assert.ok(cosine(v, emulatorEmbedding(texts[i] ?? '', 32)) > 0.9999, `vector ${i} in place`);
    }
    assert.equal(e.id, 'BAAI/bge-m3@32');
    assert.equal(e.dimensions, 32);
    // 10 texts in batches of at most 4, each naming the discovered model.
    const sizes = embeddingRequests().map((r) => (r.body.input as string[]).length);
    assert.deepEqual(sizes, [4, 4, 2]);
    for (const r of embeddingRequests()) assert.equal(r.body.model, 'BAAI/bge-m3');
    assert.deepEqual(await e.embed([], { purpose: 'query' }), []);
  });

  test('never has more requests in flight than its concurrency, across callers', async () => {
    emu.setEmbeddingReply({ delayMs: 30 });
    // Counted where the embedder sends and reads (the emulator's own timestamps race with the
    // client on a busy machine): in flight from the call until the body is read.
    let inFlight = 0;
    let most = 0;
    let sent = 0;
    const counting: typeof fetch = async (input, init) => {
      inFlight++;
      sent++;
      most = Math.max(most, inFlight);
      try {
        const res = await fetch(input, init);
        const body = await res.arrayBuffer();
        return new Response(body, { status: res.status, headers: res.headers });
      } finally {
        inFlight--;
      }
    };
    const e = make({ batchSize: 1, concurrency: 2, fetch: counting });
    await e.ready();
    sent = 0;
    const calls = [0, 1, 2].map((c) =>
      e.embed(
        ['a', 'b', 'c'].map((t) => `${t}${c}`),
        { purpose: 'document' },
      ),
    );
    assert.equal((await Promise.all(calls)).flat().length, 9);
    assert.equal(sent, 9, 'one request per text at batch size 1');
    assert.equal(most, 2, 'two at once, never more');
  });

  test('puts the configured prefixes for its model before queries and documents', async () => {
    const e = make({
      model: 'BAAI/bge-m3',
      prefixes: {
        'BAAI/bge-m3': { query: 'query: ', document: 'passage: ' },
        other: { query: 'x' },
      },
    });
    await e.embed(['how do I get my money back'], { purpose: 'query' });
    await e.embed(['Refunds take 30 days.'], { purpose: 'document' });
    const inputs = embeddingRequests().map((r) => r.body.input);
    assert.deepEqual(inputs, [
      ['query: how do I get my money back'],
      ['passage: Refunds take 30 days.'],
    ]);
    assert.equal(e.id, 'BAAI/bge-m3@32|passage: ', 'the document prefix changes stored vectors');
  });

  test('reads base64 vectors the same as numbers', async () => {
    const plain = await make().embed(['same words'], { purpose: 'query' });
    const packed = await make({ encodingFormat: 'base64' }).embed(['same words'], {
      purpose: 'query',
    });
    assert.equal(embeddingRequests().at(-1)?.body.encoding_format, 'base64');
    assert.deepEqual(Array.from(packed[0] ?? []), Array.from(plain[0] ?? []));
  });

  test('a server that is down is unavailable, and the next call works once it is back', async () => {
    const e = make({ model: MODEL.id });
    emu.setDown(true);
    await rejectsWith(e.embed(['x'], { purpose: 'query' }), 'unavailable');
    emu.setDown(false);
    assert.equal((await e.embed(['x'], { purpose: 'query' })).length, 1);
  });

  test('a server that answers too slowly is a timeout', async () => {
    emu.setEmbeddingReply({ delayMs: 5000 });
    await rejectsWith(
      make({ model: MODEL.id, timeoutMs: 100 }).embed(['x'], { purpose: 'query' }),
      'timeout',
    );
  });

  test('HTTP errors, resets and pages that are not JSON are coded', async () => {
    const e = make({ model: MODEL.id });
    const cases = [
      ['http500', 'unavailable'],
      ['http503', 'unavailable'],
      ['reset', 'unavailable'],
      ['not_json', 'bad_response'],
    ] as const;
    for (const [fault, reason] of cases) {
      emu.enqueueEmbeddings({ fault });
      await rejectsWith(e.embed(['x'], { purpose: 'query' }), reason);
    }
  });

  test('a wrong count or a dimension other than the first one seen is a bad response, never kept', async () => {
    const e = make({ model: MODEL.id });
    await e.embed(['first'], { purpose: 'document' });
    emu.enqueueEmbeddings({ fault: 'wrong_count' });
    await rejectsWith(e.embed(['a', 'b', 'c'], { purpose: 'document' }), 'bad_response');
    emu.enqueueEmbeddings({ fault: 'wrong_dimension' });
    await rejectsWith(e.embed(['a'], { purpose: 'document' }), 'bad_response');
    // The server now serves 48 dimensions under the same name: still refused.
    emu.setEmbeddingModels([{ ...MODEL, dimensions: 48 }]);
    await rejectsWith(e.embed(['a'], { purpose: 'document' }), 'bad_response');
    assert.equal(e.id, 'BAAI/bge-m3@32');
  });

  test('an input longer than the model reads is rejected, not retried as unavailable', async () => {
    emu.setEmbeddingModels([{ ...MODEL, max_model_len: 16 }]);
    await rejectsWith(
      make({ model: MODEL.id }).embed(['word '.repeat(100)], { purpose: 'document' }),
      'rejected',
    );
  });

  test('a configured model the server does not serve, or none listed, is unavailable', async () => {
    await rejectsWith(make({ model: 'nope' }).embed(['x'], { purpose: 'query' }), 'unavailable');
    emu.setEmbeddingModels([]);
    await rejectsWith(make().embed(['x'], { purpose: 'query' }), 'unavailable');
  });

  test('a discovered model replaced on the server is learnt again under a new id', async () => {
    const e = make();
    await e.ready();
    assert.equal(e.id, 'BAAI/bge-m3@32');
    emu.setEmbeddingModels([
      { id: 'Qwen/Qwen3-Embedding-0.6B', dimensions: 64, max_model_len: 8192 },
    ]);
    await rejectsWith(e.embed(['x'], { purpose: 'query' }), 'unavailable');
    const [v] = await e.embed(['x'], { purpose: 'query' });
    assert.equal(v?.length, 64);
    assert.equal(e.id, 'Qwen/Qwen3-Embedding-0.6B@64');
  });

  test("the caller's signal ends the wait as aborted", async () => {
    emu.setEmbeddingReply({ fault: 'hang' });
    const stop = new AbortController();
    const p = make({ model: MODEL.id }).embed(['x'], { purpose: 'query', signal: stop.signal });
    setImmediate(() => stop.abort());
    await rejectsWith(p, 'aborted');
  });
});
