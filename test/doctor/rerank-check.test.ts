// The doctor's reranker check as an operator meets it: nothing configured is a warning that says
// how to turn it on; a server is asked for its models and one score; a server that fails is a
// warning (answers still come, in the first-stage order), never a failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runDoctor, startSetup } from './setup.ts';

describe('the reranker check', () => {
  test('no endpoint: a warning naming LLM_RERANK_BASE_URL and a vLLM cross-encoder, no failure', async () => {
    const s = await startSetup({ rerank: false });
    try {
      const run = await runDoctor(s.env);
      const rerank = run.byName.get('llm_rerank');
      assert.equal(rerank?.status, 'warn');
      assert.match(rerank?.summary ?? '', /no reranker/);
      assert.match(rerank?.fix ?? '', /LLM_RERANK_BASE_URL/);
      assert.match(rerank?.fix ?? '', /bge-reranker-v2-m3/);
      assert.equal(run.failed, false);
    } finally {
      await s.close();
    }
  });

  test('a healthy server: the model it serves, after one short score', async () => {
    const s = await startSetup();
    try {
      const run = await runDoctor(s.env);
      const rerank = run.byName.get('llm_rerank');
      assert.equal(rerank?.status, 'ok', rerank?.summary);
      assert.match(rerank?.summary ?? '', /serves BAAI\/bge-reranker-v2-m3/);
      const asked = s.rerank?.requests.filter((r) => r.path === '/v1/rerank') ?? [];
      assert.equal(asked.length, 1, 'one short rerank, nothing more');
    } finally {
      await s.close();
    }
  });

  test('a model that is not served, a server that is down, or one that is not a reranker', async () => {
    const s = await startSetup();
    try {
      const env = { ...s.env, LLM_RERANK_MODEL: 'ms-marco' };
      const missing = (await runDoctor(env)).byName.get('llm_rerank');
      assert.equal(missing?.status, 'warn');
      assert.match(missing?.summary ?? '', /ms-marco is not served/);

      s.rerank?.setRerankModels([]);
      s.rerank?.setModels([{ id: 'qwen3-8b', max_model_len: 32768 }]);
      const chatOnly = (await runDoctor(s.env)).byName.get('llm_rerank');
      assert.equal(chatOnly?.status, 'warn');
      assert.match(chatOnly?.summary ?? '', /rerank failed/);

      s.rerank?.setDown(true);
      const down = await runDoctor(s.env);
      assert.equal(down.byName.get('llm_rerank')?.status, 'warn');
      assert.match(down.byName.get('llm_rerank')?.summary ?? '', /cannot list models/);
      assert.equal(down.failed, false);
    } finally {
      await s.close();
    }
  });

  test('embedded: a model file is required and must exist', async () => {
    const s = await startSetup({ rerank: false });
    try {
      const env = { ...s.env, LLM_RERANK_BASE_URL: 'embedded' };
      const none = (await runDoctor(env)).byName.get('llm_rerank');
      assert.equal(none?.status, 'warn');
      assert.match(none?.summary ?? '', /without LLM_RERANK_MODEL/);
      const absent = (await runDoctor({ ...env, LLM_RERANK_MODEL: '/nowhere/r.gguf' })).byName;
      assert.equal(absent.get('llm_rerank')?.status, 'warn');
      assert.match(absent.get('llm_rerank')?.summary ?? '', /does not exist/);
    } finally {
      await s.close();
    }
  });
});
