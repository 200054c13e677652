// The HTTP reranker against the OpenAI emulator's /v1/rerank (vLLM's shape for cross-encoders):
// what search gets (one score per passage, in the passages' order, whatever order the server
// answers in), how it asks (the model named, every passage scored), and that every way the
// endpoint can fail becomes a coded RerankError, so search keeps its first-stage order.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { HttpReranker, type HttpRerankerOptions } from '../../src/llm/rerank/http-reranker.ts';
import { RerankError } from '../../src/llm/rerank/rerank-error.ts';
import {
  emulatorRelevance,
  type OpenAIEmulator,
  startOpenAIEmulator,
} from '../emulators/openai/index.ts';

const MODEL = { id: 'BAAI/bge-reranker-v2-m3', max_model_len: 512 };

async function rejectsWith(p: Promise<unknown>, reason: RerankError['reason']) {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(RerankError.isRerankError(err), `not a RerankError: ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    assert.equal(err.code, `rerank_${reason}`);
    return true;
  });
}

describe('HttpReranker', () => {
  let emu: OpenAIEmulator;
  const make = (o: Partial<HttpRerankerOptions> = {}) =>
    new HttpReranker({ baseUrl: emu.baseURL, model: '', timeoutMs: 2000, concurrency: 2, ...o });
  const rerankRequests = () => emu.requests.filter((r) => r.path === '/v1/rerank');

  before(async () => {
    emu = await startOpenAIEmulator({ models: [], rerankModels: [MODEL] });
  });
  after(() => emu.close());
  beforeEach(() => {
    emu.requests.length = 0;
    emu.setDown(false);
    emu.setRerankModels([MODEL]);
  });

  test('one score per passage in the passages’ order, though the server answers best first', async () => {
    const r = make();
    const query = 'how long does a refund take';
    const passages = [
      'The office is closed on Sundays.',
      'How long does a refund take? About 30 days to reach your account.',
      'Refund requests go to billing.',
    ];
    const scores = await r.rerank(query, passages);
    assert.deepEqual(
      scores,
      passages.map((p) => emulatorRelevance(query, p)),
    );
    assert.ok((scores[1] ?? 0) > (scores[2] ?? 0) && (scores[2] ?? 0) > (scores[0] ?? 1));
    assert.equal(r.id, MODEL.id, 'the model was learnt from /v1/models');
    const [req] = rerankRequests();
    assert.equal(req?.body.model, MODEL.id);
    assert.equal(req?.body.query, query);
    assert.deepEqual(req?.body.documents, passages);
    assert.equal(req?.body.top_n, passages.length, 'every passage is scored');
  });

  test('nothing to score asks nothing', async () => {
    assert.deepEqual(await make().rerank('anything', []), []);
    assert.equal(rerankRequests().length, 0);
  });

  test('a server that is down, fails, hangs, or answers wrongly: a coded error each', async () => {
    const r = make({ model: MODEL.id, timeoutMs: 300 });
    emu.enqueueRerank({ fault: 'http500' });
    await rejectsWith(r.rerank('q', ['a']), 'unavailable');
    emu.enqueueRerank({ fault: 'hang' });
    await rejectsWith(r.rerank('q', ['a']), 'timeout');
    emu.enqueueRerank({ fault: 'not_json' });
    await rejectsWith(r.rerank('q', ['a']), 'bad_response');
    emu.enqueueRerank({ fault: 'wrong_count' });
    await rejectsWith(r.rerank('q', ['a', 'b']), 'bad_response');
    emu.enqueueRerank({ fault: 'reset' });
    await rejectsWith(r.rerank('q', ['a']), 'unavailable');
    emu.setDown(true);
    await rejectsWith(r.rerank('q', ['a']), 'unavailable');
  });

  test('a model the server does not serve, and a server that serves none', async () => {
    await rejectsWith(make({ model: 'ms-marco' }).rerank('q', ['a']), 'unavailable');
    emu.setRerankModels([]);
    await rejectsWith(make().rerank('q', ['a']), 'unavailable');
  });

  test('the caller giving up is "aborted", not a fault of the server', async () => {
    const r = make({ model: MODEL.id });
    emu.enqueueRerank({ delayMs: 5000 });
    const stop = new AbortController();
    const pending = r.rerank('q', ['a'], { signal: stop.signal });
    setTimeout(() => stop.abort(), 50);
    await rejectsWith(pending, 'aborted');
  });
});
