// The whole bot with and without an embeddings endpoint: configured, the app hands retrieval an
// embedder that reaches the server, and /readyz reports it without ever going unready because of
// it; not configured, there is no embedder and search stays by words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

interface Readyz {
  checks: { name: string; ok: boolean; optional?: boolean }[];
}

describe('an embeddings endpoint configured', () => {
  let embed: OpenAIEmulator;
  let h: Harness;
  before(async () => {
    embed = await startOpenAIEmulator({
      models: [],
      embeddingModels: [{ id: 'BAAI/bge-m3', dimensions: 48, max_model_len: 8192 }],
    });
    h = await startHarness({ env: { LLM_EMBED_BASE_URL: embed.baseURL } });
  });
  after(async () => {
    await h?.close();
    await embed?.close();
  });

  test('the app’s embedder embeds through the server, under the served model’s id', async () => {
    const embedder = h.app.embedder;
    assert.ok(embedder, 'an embedder is built');
    const [v] = await embedder.embed(['refunds within 30 days'], { purpose: 'document' });
    assert.equal(v?.length, 48);
    assert.equal(embedder.id, 'BAAI/bge-m3@48');
  });

  test('/readyz lists the embeddings endpoint and stays ready while it is down', async () => {
    const base = `http://127.0.0.1:${h.app.port}`;
    const up = (await (await fetch(`${base}/readyz`)).json()) as Readyz;
    assert.equal(up.checks.find((c) => c.name === 'llm_embed')?.ok, true);
    embed.setDown(true);
    try {
      const res = await fetch(`${base}/readyz`);
      assert.equal(res.status, 200);
      const down = (await res.json()) as Readyz;
      assert.equal(down.checks.find((c) => c.name === 'llm_embed')?.ok, false);
    } finally {
      embed.setDown(false);
    }
  });
});

describe('no embeddings endpoint', () => {
  test('the app has no embedder and /readyz does not mention one', async () => {
    const h = await startHarness();
    try {
      assert.equal(h.app.embedder, undefined);
      const body = (await (await fetch(`http://127.0.0.1:${h.app.port}/readyz`)).json()) as Readyz;
      assert.equal(
        body.checks.some((c) => c.name === 'llm_embed'),
        false,
      );
    } finally {
      await h.close();
    }
  });
});
