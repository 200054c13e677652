// The doctor's embeddings check as an operator meets it: nothing configured is a warning that says
// how to turn it on; a server is asked for its models and one embedding, and its dimension shown;
// a server that fails is a warning (answers still come, searched by words), never a failure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runDoctor, startSetup } from './setup.ts';

describe('the embeddings check', () => {
  test('no endpoint: a warning naming LLM_EMBED_BASE_URL and "embedded", and no failure', async () => {
    const s = await startSetup({ embed: false });
    try {
      const run = await runDoctor(s.env);
      const embed = run.byName.get('llm_embed');
      assert.equal(embed?.status, 'warn');
      assert.match(embed?.summary ?? '', /by words only/);
      assert.match(embed?.fix ?? '', /LLM_EMBED_BASE_URL=embedded/);
      assert.match(embed?.fix ?? '', /--runner pooling/);
      assert.equal(run.failed, false);
    } finally {
      await s.close();
    }
  });

  test('a healthy server: the model it serves and its dimension', async () => {
    const s = await startSetup();
    try {
      const run = await runDoctor({ ...s.env, LLM_EMBED_MODEL: 'BAAI/bge-m3' });
      const embed = run.byName.get('llm_embed');
      assert.equal(embed?.status, 'ok', embed?.summary);
      assert.match(embed?.summary ?? '', /BAAI\/bge-m3: 1024 dimensions/);
      const asked = s.embed?.requests.filter((r) => r.path === '/v1/embeddings') ?? [];
      assert.equal(asked.length, 1, 'one short embedding, nothing more');
    } finally {
      await s.close();
    }
  });

  test('a model that is not served, a server that is down, or one that is not an embedder', async () => {
    const s = await startSetup();
    try {
      const missing = (await runDoctor({ ...s.env, LLM_EMBED_MODEL: 'intfloat/e5' })).byName;
      assert.equal(missing.get('llm_embed')?.status, 'warn');
      assert.match(
        missing.get('llm_embed')?.summary ?? '',
        /intfloat\/e5 is not served.*BAAI\/bge-m3/,
      );

      s.embed?.setEmbeddingModels([]);
      s.embed?.setModels([{ id: 'qwen3-8b', max_model_len: 32768 }]);
      const chatOnly = (await runDoctor(s.env)).byName.get('llm_embed');
      assert.equal(chatOnly?.status, 'warn');
      assert.match(chatOnly?.summary ?? '', /embeddings failed/);
      assert.match(chatOnly?.fix ?? '', /--runner pooling/);

      s.embed?.setDown(true);
      const down = await runDoctor(s.env);
      assert.equal(down.byName.get('llm_embed')?.status, 'warn');
      assert.match(down.byName.get('llm_embed')?.summary ?? '', /cannot list models/);
      assert.equal(down.failed, false);
    } finally {
      await s.close();
    }
  });

  test('embedded: the model file is named, and one that does not exist is a warning', async () => {
    const s = await startSetup({ embed: false });
    try {
      const env = { ...s.env, LLM_EMBED_BASE_URL: 'embedded' };
      const byDefault = (await runDoctor(env)).byName.get('llm_embed');
      assert.equal(byDefault?.status, 'ok');
      assert.match(byDefault?.summary ?? '', /^embedded: hf:/);
      const absent = (await runDoctor({ ...env, LLM_EMBED_MODEL: '/nowhere/e.gguf' })).byName;
      assert.equal(absent.get('llm_embed')?.status, 'warn');
      assert.match(absent.get('llm_embed')?.summary ?? '', /does not exist/);
    } finally {
      await s.close();
    }
  });
});
