// The emulator's /v1/embeddings as the official OpenAI SDK sees it (the SDK asks for base64 by
// default and decodes it), and its error shapes, so tests against it mean what they would against
// vLLM with `--runner pooling`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import {
  emulatorEmbedding,
  type OpenAIEmulator,
  startOpenAIEmulator,
} from '../emulators/openai/index.ts';

const MODEL = { id: 'BAAI/bge-m3', dimensions: 16, max_model_len: 64 };

describe('the OpenAI emulator serves embeddings', () => {
  let emu: OpenAIEmulator;
  let client: OpenAI;
  before(async () => {
    emu = await startOpenAIEmulator({ embeddingModels: [MODEL] });
    client = new OpenAI({ baseURL: emu.baseURL, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => emu.close());

  test('the SDK gets one embedding per input with usage, whether it asks for base64 or floats', async () => {
    const packed = await client.embeddings.create({ model: MODEL.id, input: ['a b', 'c'] });
    assert.equal(packed.object, 'list');
    assert.equal(packed.model, MODEL.id);
    assert.deepEqual(
      packed.data.map((d) => [d.object, d.index, d.embedding.length]),
      [
        ['embedding', 0, 16],
        ['embedding', 1, 16],
      ],
    );
    assert.ok(packed.usage.prompt_tokens > 0);
    assert.equal(packed.usage.total_tokens, packed.usage.prompt_tokens);
    const floats = await client.embeddings.create({
      model: MODEL.id,
      input: 'a b',
      encoding_format: 'float',
    });
    const want = Array.from(emulatorEmbedding('a b', 16));
    for (const got of [floats.data[0]?.embedding, packed.data[0]?.embedding]) {
      assert.deepEqual(
        got?.map((x) => Math.fround(x)),
        want,
      );
    }
    const listed = await client.models.list();
    assert.ok(
      listed.data.some((m) => m.id === MODEL.id),
      '/v1/models lists the embedding model',
    );
  });

  test('an unknown model is a 404, bad input and too-long input are 400s, in vLLM error shape', async () => {
    const status = async (body: Record<string, unknown>) => {
      const res = await fetch(`${emu.baseURL}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { error: { message: string; type: string; code: number } };
      assert.equal(json.error.code, res.status);
      return [res.status, json.error.type];
    };
    assert.deepEqual(await status({ model: 'nope', input: 'x' }), [404, 'NotFoundError']);
    assert.deepEqual(await status({ model: MODEL.id, input: [] }), [400, 'BadRequestError']);
    assert.deepEqual(await status({ model: MODEL.id, input: [{}] }), [400, 'BadRequestError']);
    assert.deepEqual(await status({ model: MODEL.id, input: 'x '.repeat(100) }), [
      400,
      'BadRequestError',
    ]);
    assert.deepEqual(await status({ model: MODEL.id, input: 'x', dimensions: 8 }), [
      400,
      'BadRequestError',
    ]);
  });
});
