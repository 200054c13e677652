// Gateway dispatches as Discord sends them — the examples of Discord's own API documentation and
// discord.js's tests (test/fixtures/discord-payloads/gateway, sources in ATTRIBUTION.md) — sent
// unchanged but for their ids through the Discord emulator's gateway websocket to the running bot.
// Every interaction gets its callback inside Discord's 3 s window (the emulator refuses a later
// one), an unknown one a private notice or, for autocomplete, no choices; a mention and a message in
// the bot's thread are answered; the bot's own and other bots' messages, edits, deletions and
// events it has no use for are not; and the process stays up throughout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DiscordEmulator } from '../emulators/discord/index.ts';
import {
  type IdRole,
  loadRecordedFrames,
  mapRecordedIds,
  type RecordedFixture,
} from '../support/discord-recorded.ts';
import { type Harness, startHarness } from '../support/harness.ts';

const ANSWER = 'From the recorded dispatches: yes.';

describe('recorded Discord gateway dispatches through the emulator', () => {
  let h: Harness;
  let d: DiscordEmulator;
  let guildId = '';
  let channelId = '';
  let threadId = '';
  let userId = '';

  before(async () => {
    h = await startHarness({ discord: true });
    h.llm.setResponder(() => ({ content: ANSWER }));
    assert.ok(h.discord);
    d = h.discord;
    guildId = d.guilds[0]?.id ?? '';
    channelId = d.guilds[0]?.channels[0]?.id ?? '';
    userId = d.users[0]?.id ?? '';
    // A thread the bot answers in: the one its answer to a mention opened.
    const asked = await d.userMessage({
      guildId,
      channelId,
      userId,
      content: 'open a thread',
      mentionsBot: true,
    });
    threadId = (await d.waitFor(() => d.threads().find((t) => t.starterMessageId === asked.id))).id;
    await h.handled(asked.id);
  });
  after(() => h.close());

  /** What the bot posted; `but`: a recorded message of its own, sent to it rather than by it. */
  const botPosts = (but = '') =>
    d.allMessages().filter((m) => m.author.id === d.botUserId && m.id !== but);

  /** This world's id for a role; the target message is posted first, where the frame needs one. */
  async function world(fx: RecordedFixture): Promise<(role: IdRole) => string> {
    const needsMessage = Object.values(fx.ids).includes('message');
    const target = needsMessage
      ? await d.userMessage({ guildId, channelId, userId, content: 'a message to act on' })
      : undefined;
    if (target) await h.handled(target.id);
    const ids: Record<Exclude<IdRole, 'new' | 'other'>, string> = {
      guild: guildId,
      channel: channelId,
      thread: threadId,
      user: userId,
      bot: d.botUserId,
      application: d.applicationId,
      message: target?.id ?? '',
    };
    return (role) => (role === 'new' || role === 'other' ? d.snowflake() : ids[role]);
  }

  /** Everything dispatched before it has been taken in once an ordinary message is handled. */
  async function settled(): Promise<void> {
    const m = await d.userMessage({ guildId, channelId, userId, content: 'and another thing' });
    await h.handled(m.id);
  }

  for (const fx of loadRecordedFrames()) {
    test(`${fx.file}: ${fx.frame.t} → ${fx.expect}`, async () => {
      const frame = { t: fx.frame.t, d: mapRecordedIds(fx, await world(fx)) };
      const recordedId = typeof frame.d.id === 'string' ? frame.d.id : '';
      const before = botPosts(recordedId).length;
      const sent = d.replayFrame(frame);
      if (sent !== undefined) {
        const answered = await d.waitFor(() => {
          const r = d.interactions().find((i) => i.id === sent.id);
          return r?.acknowledgedAt === undefined ? undefined : r;
        });
        if (fx.expect === 'empty') {
          assert.equal(answered.responseType, 8, 'autocomplete answered');
          assert.deepEqual(answered.choices, [], 'with no choices');
          return;
        }
        assert.equal(fx.expect, 'notice');
        assert.equal(answered.responseType, 4, 'answered with a message');
        assert.equal(answered.ephemeral, true, 'seen by the person alone');
        const notice = await d.waitFor(
          () => d.interactions().find((i) => i.id === sent.id)?.original,
        );
        assert.ok(notice.content.length > 0, 'in words');
        return;
      }
      const messageId = recordedId;
      const where = String(frame.d.channel_id ?? '');
      if (fx.frame.t === 'MESSAGE_CREATE') await h.handled(messageId);
      else await settled();
      if (fx.expect === 'answered') {
        const reply = await d.waitFor(() =>
          botPosts().find(
            (m, i) =>
              i >= before &&
              (m.channel_id === where ||
                m.channel_id === d.threads().find((t) => t.starterMessageId === messageId)?.id),
          ),
        );
        assert.match(reply.content, /recorded dispatches/);
        return;
      }
      // A shared file is read even where nothing is answered: fetched from the CDN's URL.
      const files = (frame.d.attachments ?? []) as { filename: string }[];
      if (fx.frame.t === 'MESSAGE_CREATE' && files.length > 0) {
        await d.waitFor(() =>
          files.every((f) =>
            d.cdnDownloads().some((x) => x.status === 200 && x.path.endsWith(`/${f.filename}`)),
          ),
        );
      }
      assert.equal(fx.expect, 'ignored');
      assert.equal(botPosts(recordedId).length, before, 'nothing posted');
    });
  }

  test('the process is still up and answering after every recording', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    assert.equal(res.status, 200);
    const m = await d.userMessage({
      guildId,
      channelId,
      userId,
      content: 'still there?',
      mentionsBot: true,
    });
    await h.handled(m.id);
    await d.waitFor(() => d.threads().find((t) => t.starterMessageId === m.id));
  });
});
