// Hybrid file search through the whole bot (Slack emulator, the real HTTP embedder against the
// OpenAI emulator's /v1/embeddings): a file's chunks are embedded before its ✅, a question embeds
// its query and finds the passage, and with the embeddings server down the answer still comes,
// found by words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import { startOpenAIEmulator } from '../emulators/openai/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { callsTo, waitForReply } from '../support/slack-helpers.ts';
import { searchThenAnswer } from './search-then-answer.ts';

const inputs = (embed: OpenAIEmulator) =>
  embed.requests
    .filter((r) => r.path.endsWith('/embeddings'))
    .flatMap((r) => {
      const input = (r.body as { input?: unknown }).input;
      return Array.isArray(input) ? input.map(String) : [String(input)];
    });

describe('hybrid file search through the bot', () => {
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

  async function dropFile(channel: string, pages: string[]) {
    const file = h.slack.uploadFile({ name: 'terms.pdf', bytes: await buildTextPdf(pages) });
    const drop = await h.slack.postUserMessage({ channel, user: 'U1', text: '', files: [file] });
    await h.slack.waitFor(() =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.timestamp === drop.ts && c.args.name === 'white_check_mark',
      ),
    );
  }

  async function ask(channel: string, query: string) {
    h.llm.setResponder(searchThenAnswer(query));
    const q = await h.slack.postUserMessage({
      channel,
      user: 'U2',
      text: `<@${h.slack.botUserId}> ${query}?`,
    });
    const replies = await waitForReply(h.slack, channel, q.ts, 'TOOL RESULT');
    return replies.map((m) => m.text).join('\n');
  }

  test('chunks are embedded before the ✅, and a question embeds its query once', async () => {
    await dropFile('C90', [
      'Terms of service.',
      'Annual plans cancelled within thirty days are refunded in full.',
    ]);
    assert.ok(
      inputs(embed).some((t) => t.includes('refunded in full')),
      'the chunk was embedded at ingest',
    );
    const before = inputs(embed).length;
    const text = await ask('C90', 'are annual plans refunded');
    assert.match(text, /terms\.pdf[\s\S]*refunded in full/);
    // (The question's thread also reads the channel's file into its own session, embedding it
    // for that owner; the query itself is embedded once.)
    const asked = inputs(embed)
      .slice(before)
      .filter((t) => t === 'are annual plans refunded');
    assert.equal(asked.length, 1);
  });

  test('with the embeddings server down, files are still read and found by words', async () => {
    embed.setDown(true);
    try {
      await dropFile('C91', ['Launch plan.', 'The launch code is PELICAN-42.']);
      const text = await ask('C91', 'launch code');
      assert.match(text, /PELICAN-42/);
    } finally {
      embed.setDown(false);
    }
  });
});
