// The reranker through the whole bot (Slack emulator; the real HTTP embedder and reranker against
// the OpenAI emulator's /v1/embeddings and /v1/rerank, as vLLM serves them): a question's search is
// reranked, and a question whose passages the reranker scores under the floor is told that the
// files do not cover it; with the reranker down, the answer still comes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import { startOpenAIEmulator } from '../emulators/openai/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { callsTo, waitForReply } from '../support/slack-helpers.ts';
import { searchThenAnswer } from './search-then-answer.ts';

// Pages enough that the file is never given whole (over the 6,000-character budget).
const FILLER = Array.from(
  { length: 70 },
  (_, i) =>
    `Section ${i + 1}. The committee reviewed item ${i + 1} of the agenda and noted it for the record without further discussion or change to the standing procedures.`,
);

describe('reranked file search through the bot', () => {
  let models: OpenAIEmulator;
  let h: Harness;
  before(async () => {
    models = await startOpenAIEmulator({
      models: [],
      embeddingModels: [{ id: 'BAAI/bge-m3', dimensions: 48, max_model_len: 8192 }],
      rerankModels: [{ id: 'BAAI/bge-reranker-v2-m3', max_model_len: 8192 }],
    });
    h = await startHarness({
      // One server serves both models, so the reranker is named (the first listed embeds).
      env: {
        LLM_EMBED_BASE_URL: models.baseURL,
        LLM_RERANK_BASE_URL: models.baseURL,
        LLM_RERANK_MODEL: 'BAAI/bge-reranker-v2-m3',
      },
      overrides: { llm: { rerank: { minScore: 0.5, timeoutMs: 1000 } } },
    });
    const file = h.slack.uploadFile({
      name: 'minutes.pdf',
      bytes: await buildTextPdf([
        ...FILLER,
        'Parking. Staff parking is in the garage under the north wing, level minus two.',
      ]),
    });
    const drop = await h.slack.postUserMessage({
      channel: 'C95',
      user: 'U1',
      text: '',
      files: [file],
    });
    await h.slack.waitFor(() =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.timestamp === drop.ts && c.args.name === 'white_check_mark',
      ),
    );
  });
  after(async () => {
    await h?.close();
    await models?.close();
  });

  async function ask(query: string) {
    h.llm.setResponder(searchThenAnswer(query));
    const q = await h.slack.postUserMessage({
      channel: 'C95',
      user: 'U2',
      text: `<@${h.slack.botUserId}> ${query}?`,
    });
    const replies = await waitForReply(h.slack, 'C95', q.ts, 'TOOL RESULT');
    return replies.map((m) => m.text).join('\n');
  }

  const reranks = () => models.requests.filter((r) => r.path === '/v1/rerank');

  test('the search is reranked and the passage that answers reaches the model', async () => {
    const before = reranks().length;
    const text = await ask('where is the staff parking garage');
    assert.match(text, /level minus two/);
    const asked = reranks().slice(before);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.body.query, 'where is the staff parking garage');
  });

  test('passages the reranker scores under the floor: "not in the files"', async () => {
    // "committee" and "agenda" match the minutes; the emulated cross-encoder scores 2 of 6 words.
    const text = await ask('when does the committee publish its annual agenda budget');
    assert.match(text, /NOT IN THE FILES/);
  });

  test('with the reranker down the answer still comes, from the first-stage order', async () => {
    models.enqueueRerank({ fault: 'http500' });
    const text = await ask('where is the staff parking garage');
    assert.match(text, /level minus two/);
  });
});
