// Approvals in the web chat: the card comes with the page's buttons; Approve once runs exactly the
// approved call when the turn resumes, Deny tells the model it did not run. (The web chat is one
// person's, with one channel: "someone else" and "another channel" are in the Slack test.)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { WebMessage } from '../../adapters/web/transcript.ts';
import { CoreWatch } from '../contract/flow-driver.ts';
import { type ApprovalHarness, startApprovalHarness } from '../support/approval-harness.ts';
import type { Harness } from '../support/harness.ts';
import type { HttpTestServer } from '../support/mcp-test-server.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';

const DELETE = { name: 'test__delete_everything', arguments: { project: 'WEB' } };

describe('Web chat: team tools wait for approval', () => {
  let rig: ApprovalHarness;
  let h: Harness;
  let server: HttpTestServer;
  let client: WebChatClient;
  const watch = new CoreWatch();

  before(async () => {
    rig = await startApprovalHarness(watch, (url) => ({
      env: { WEB_ENABLED: 'true' },
      overrides: {
        mcp: { servers: [{ name: 'test', url }] },
        channels: { overrides: { 'web:local:chat': { mcpServers: 'test' } } },
      },
    }));
    ({ h, server } = rig);
    client = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  });
  after(async () => {
    await rig?.close();
  });

  const bot = (v: ThreadView): WebMessage[] => v.messages().filter((m) => m.author === 'bot');

  async function askAndPress(button: 0 | 2, then: string): Promise<ThreadView> {
    const view = await client.watch((await client.createThread()).id);
    const deleted = server.state.deletions.length;
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
    const id = await client.send(view.id, 'clean up WEB', randomUUID());
    await watch.handled(id);
    const card = await view.until(
      () => bot(view).find((m) => (m.card?.actions?.length ?? 0) === 3),
      'the card',
    );
    assert.deepEqual(
      card.card?.actions?.map((a) => a.label),
      ['Approve once', 'Always in this channel', 'Deny'],
    );
    assert.equal(server.state.deletions.length, deleted, 'nothing ran before the decision');
    h.llm.enqueue(...(button === 0 ? [{ toolCalls: [DELETE] }] : []), { content: then });
    const res = await client.request(`/api/threads/${view.id}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messageId: card.id,
        ref: card.card?.actions?.[button]?.ref,
        values: {},
      }),
    });
    assert.ok(res.ok);
    await view.until(() => bot(view).find((m) => m.text.includes(then)), 'the resumed answer');
    return view;
  }

  test('approve once: the approved call runs when the turn resumes', async () => {
    await askAndPress(0, 'Done: WEB is clean.');
    assert.deepEqual(server.state.deletions, [{ project: 'WEB' }]);
  });

  test('deny: nothing runs, the thread says so and the model is told', async () => {
    const view = await askAndPress(2, 'Fine, I left it.');
    assert.ok(bot(view).some((m) => /was denied/.test(m.text)));
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /was not approved \(denied\)/);
    assert.equal(server.state.deletions.length, 1);
  });
});
