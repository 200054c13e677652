// "Share file with workspace", the Slack message shortcut: used on a message with a file, the file
// becomes searchable from every channel of that workspace (and no other); from a private channel
// an ephemeral confirmation comes first, and only the asker's Share shares.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EphemeralMessage } from '../emulators/slack/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

const SHORTCUT = 'threadmind_share_file';

describe('Share file with workspace (Slack message shortcut)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'search_attachment', arguments: { query: 'glimmerwick budget' } }],
      };
    });
  });
  after(() => h.close());

  /** A question in another channel (or workspace): what search_attachment found. */
  async function searchFrom(channel: string, teamId?: string): Promise<string> {
    const q = await h.slack.postUserMessage({
      channel,
      user: 'U0SEARCH1',
      ...(teamId ? { teamId } : {}),
      text: `<@${h.slack.botUserId}> what is the glimmerwick budget?`,
    });
    return (await waitForReply(h.slack, channel, q.ts, 'TOOL RESULT', 15_000))
      .map((m) => m.text)
      .join('');
  }

  /** The ephemeral message `user` was shown in `channel` whose text matches, once it is there. */
  function ephemeral(channel: string, user: string, text: RegExp): Promise<EphemeralMessage> {
    return h.slack.waitFor(
      () =>
        h.slack
          .ephemeralMessages()
          .find((e) => e.channel === channel && e.user === user && text.test(e.text)),
      15_000,
    );
  }

  async function postWithFile(channel: string, user: string, name: string, words: string) {
    const file = h.slack.uploadFile({ name, bytes: await buildTextPdf([words]) });
    const post = await h.slack.postUserMessage({
      channel,
      user,
      text: 'see attached',
      files: [file],
    });
    // The file is read into the channel first (it was dropped at its top level).
    await h.slack.waitFor(() =>
      h.slack
        .callsTo('reactions.add')
        .find((c) => c.args.channel === channel && c.args.timestamp === post.ts),
    );
    return post;
  }

  test('on a public channel message: shared at once, found from another channel of the workspace only', async () => {
    const post = await postWithFile(
      'C0SHR0001',
      'U0SHARER1',
      'glimmerwick.pdf',
      'The glimmerwick budget is 42 thousand.',
    );
    const r = await h.slack.messageShortcut({
      channel: 'C0SHR0001',
      ts: post.ts,
      user: 'U0SHARER1',
      callbackId: SHORTCUT,
    });
    assert.equal(r.status, 200);
    const said = await ephemeral('C0SHR0001', 'U0SHARER1', /Shared glimmerwick\.pdf/);
    assert.match(said.text, /with the whole workspace/);
    assert.match(await searchFrom('C0SHR0002'), /glimmerwick\.pdf.*\(shared with the workspace\)/);
    assert.doesNotMatch(await searchFrom('C0SHR0002', 'T0OTHER001'), /glimmerwick\.pdf/);
  });

  test('in a private channel: a confirmation first; others cannot confirm, Cancel shares nothing, Share shares', async () => {
    h.slack.setChannelMembers('G0SHR0003', ['U0PRIV001', 'U0PRIV002', h.slack.botUserId]);
    const post = await postWithFile(
      'G0SHR0003',
      'U0PRIV001',
      'secret-plan.pdf',
      'The glimmerwick budget in the secret plan is 7 thousand.',
    );
    const shortcut = () =>
      h.slack.messageShortcut({
        channel: 'G0SHR0003',
        ts: post.ts,
        user: 'U0PRIV001',
        callbackId: SHORTCUT,
      });
    await shortcut();
    const ask = await ephemeral('G0SHR0003', 'U0PRIV001', /Press/);
    assert.match(ask.text, /secret-plan\.pdf is in a private channel that 2 people can see/);
    assert.match(ask.text, /everyone in the workspace can ask me about it/);
    assert.ok(ask.message_ts);
    assert.doesNotMatch(await searchFrom('C0SHR0004'), /secret-plan\.pdf/, 'not shared yet');

    // Someone else's click is refused, and the confirmation stays.
    await h.slack.pressButton({
      channel: 'G0SHR0003',
      ts: ask.message_ts ?? '',
      user: 'U0PRIV002',
      actionId: 'threadmind_share_confirm',
    });
    await ephemeral('G0SHR0003', 'U0PRIV002', /Only the person who asked/);
    assert.doesNotMatch(await searchFrom('C0SHR0004'), /secret-plan\.pdf/);

    await h.slack.pressButton({
      channel: 'G0SHR0003',
      ts: ask.message_ts ?? '',
      user: 'U0PRIV001',
      actionId: 'threadmind_share_cancel',
    });
    const cancelled = await ephemeral('G0SHR0003', 'U0PRIV001', /Cancelled/);
    assert.equal(cancelled.message_ts, ask.message_ts, 'the confirmation itself is replaced');
    assert.equal(cancelled.blocks, undefined, 'its buttons are gone');
    assert.doesNotMatch(await searchFrom('C0SHR0004'), /secret-plan\.pdf/, 'cancel shares nothing');

    await shortcut();
    const again = await h.slack.waitFor(() =>
      h.slack
        .ephemeralMessages()
        .find(
          (e) => e.user === 'U0PRIV001' && /Press/.test(e.text) && e.message_ts !== ask.message_ts,
        ),
    );
    await h.slack.pressButton({
      channel: 'G0SHR0003',
      ts: again.message_ts ?? '',
      user: 'U0PRIV001',
      actionId: 'threadmind_share_confirm',
    });
    await ephemeral('G0SHR0003', 'U0PRIV001', /Shared secret-plan\.pdf with the whole workspace/);
    assert.match(await searchFrom('C0SHR0004'), /secret-plan\.pdf.*\(shared with the workspace\)/);
  });

  test('on a message without files: says there is nothing to share', async () => {
    const post = await h.slack.postUserMessage({
      channel: 'C0SHR0005',
      user: 'U0SHARER1',
      text: 'just words here',
    });
    await h.slack.messageShortcut({
      channel: 'C0SHR0005',
      ts: post.ts,
      user: 'U0SHARER1',
      callbackId: SHORTCUT,
    });
    await ephemeral('C0SHR0005', 'U0SHARER1', /no files on that message/);
  });
});
