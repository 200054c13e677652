// `/usage` in the web chat (the commands table's usage command): after a question, the one person
// of the web chat sees their tokens as the model server reported them, and gets every row as CSV.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';

describe('the usage command', () => {
  let h: Harness;
  let web: WebChatClient;
  before(async () => {
    h = await startHarness({
      env: { WEB_ENABLED: 'true' },
      overrides: { web: { updateIntervalMs: 20 } },
    });
    web = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(() => h?.close());

  const botSaid = (view: ThreadView) => view.messages().filter((m) => m.author === 'bot');

  test('shows the top people and channels, and exports the rows', async () => {
    h.llm.setResponder(() => ({
      content: 'Five.',
      usage: { prompt_tokens: 120, completion_tokens: 30 },
    }));
    const thread = await web.createThread();
    const view = await web.watch(thread.id);
    try {
      await web.send(thread.id, 'what is the limit?');
      await view.until(() => botSaid(view).some((m) => m.text.includes('Five.')), 'the answer');
      const n = botSaid(view).length;
      await web.send(thread.id, '/usage');
      const shown = await view.until(() => botSaid(view)[n], 'the usage');
      assert.match(shown.text, /Model usage, last 7 days/);
      assert.match(shown.text, /150 tokens in 1 calls/);
      assert.match(shown.text, /web:local:chat: 150 tokens/);
      await web.send(thread.id, '/usage csv');
      const file = await view.until(() => botSaid(view)[n + 1]?.card?.file, 'the file');
      const lines = file.body.trim().split('\n');
      assert.equal(lines[0], 'day,project,channel,person,model,kind,prompt,completion,calls');
      assert.match(lines[1] ?? '', /,web:local,web:local:chat,web:[^,]+,qwen3-8b,answer,120,30,1$/);
    } finally {
      view.close();
    }
  });
});
