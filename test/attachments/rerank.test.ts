// The reranker stage as the model and the operator notice it: the passage that answers comes
// first even when the words favour another; a question whose passages the reranker scores below
// its floor gets no passage (search_attachment then says "not in the files"); a reranker that is
// down or slow leaves the first-stage order and floors, and the log says so once a minute. The
// reranker is the HTTP client against the vLLM emulator's /v1/rerank.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { AttachmentIndex, type AttachmentIndexOptions } from '../../src/attachments/index/index.ts';
import { createStore } from '../../src/compose/create-store.ts';
import { HttpReranker } from '../../src/llm/rerank/http-reranker.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { capturingLogger, textFile } from './index-fixtures.ts';

const MODEL = { id: 'BAAI/bge-reranker-v2-m3', max_model_len: 512 };

let store: Store;
let emu: OpenAIEmulator;
before(async () => {
  store = await createStore('sqlite://:memory:');
  emu = await startOpenAIEmulator({ models: [], rerankModels: [MODEL] });
});
after(async () => {
  await emu.close();
  await store.close();
});
beforeEach(() => {
  emu.setDown(false);
  emu.requests.length = 0;
});

const owner = (): Owner => ({ kind: 'session', key: `slack:T${randomUUID().slice(0, 8)}:C1:1.1` });
const file = textFile;

const reranker = (timeoutMs = 2000) =>
  new HttpReranker({ baseUrl: emu.baseURL, model: MODEL.id, timeoutMs, concurrency: 2 });

async function indexWith(o: AttachmentIndexOptions) {
  const ix = new AttachmentIndex(store, o);
  const who = owner();
  // Words favour "repeats" (the query's words three times); the emulated cross-encoder favours
  // "answers", which holds every word asked.
  await ix.addFile(who, file('repeats'), [
    { text: 'Cancellation deadline. Cancellation deadline, cancellation deadline: see the sheet.' },
  ]);
  await ix.addFile(who, file('answers'), [
    { text: 'What is the cancellation deadline? It is noon on Friday.' },
  ]);
  await ix.addFile(who, file('other'), [{ text: 'The cafeteria is on the second floor.' }]);
  return { ix, who };
}

describe('reranked search', () => {
  test('the passage the reranker scores best comes first, with how each stage saw it', async () => {
    const { ix, who } = await indexWith({ reranker: reranker(), minRerankScore: 0.5 });
    const query = 'what is the cancellation deadline';
    const plain = await ix.search([who], query, 5, { rerank: false });
    assert.equal(plain[0]?.fileId, 'repeats', 'words alone prefer the repetition');
    const hits = await ix.search([who], query, 5);
    assert.equal(hits[0]?.fileId, 'answers');
    assert.equal(hits[0]?.rerank?.rank, 1);
    assert.equal(hits[0]?.rerank?.score, 1);
    assert.ok((hits[0]?.rerank?.before ?? 0) > 1, 'it was not first before reranking');
    assert.ok(
      hits.every((h) => (h.rerank?.score ?? 0) >= 0.5),
      'nothing under the floor is shown',
    );
    const asked = emu.requests.filter((r) => r.path === '/v1/rerank');
    assert.equal(asked.length, 1, 'one rerank request per search');
  });

  test('every candidate under the floor: no passage, so the tool can say "not in the files"', async () => {
    const { ix, who } = await indexWith({ reranker: reranker(), minRerankScore: 0.6 });
    // One stray word ("floor") matches; the emulated cross-encoder scores it 1 of 4 words.
    const query = 'which floor has parking spaces';
    assert.deepEqual(await ix.search([who], query, 5), []);
    const unfloored = await ix.search([who], query, 5, { relevanceFloor: false });
    assert.equal(unfloored[0]?.fileId, 'other', 'with the floor off the weak passage is there');
    assert.ok((unfloored[0]?.rerank?.score ?? 1) < 0.6);
  });

  for (const how of ['down', 'slow'] as const) {
    test(`a reranker that is ${how}: the first-stage order, and one warning a minute`, async () => {
      const { log, lines } = capturingLogger();
      const { ix, who } = await indexWith({ reranker: reranker(200), log, minRerankScore: 0.9 });
      const query = 'what is the cancellation deadline';
      const expected = (await ix.search([who], query, 5, { rerank: false })).map((h) => h.fileId);
      if (how === 'down') emu.setDown(true);
      else emu.enqueueRerank({ delayMs: 2000 }, { delayMs: 2000 });
      for (let i = 0; i < 2; i++) {
        const hits = await ix.search([who], query, 5);
        assert.deepEqual(
          hits.map((h) => h.fileId),
          expected,
        );
        assert.ok(hits.every((h) => h.rerank === undefined));
      }
      const warnings = lines.filter((l) => /reranking failed/.test(String(l.msg)));
      assert.equal(warnings.length, 1, JSON.stringify(lines));
      assert.equal(warnings[0]?.what, 'attachment search');
    });
  }
});
