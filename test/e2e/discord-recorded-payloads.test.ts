// Interactions and messages as Discord's own libraries' tests hold them (test/fixtures/discord-payloads,
// sources in its ATTRIBUTION.md), sent through the Discord emulator's
// gateway: every interaction is answered before Discord's 3 s run out; one no command or flow
// knows (an old vote button, a dropped command) gets a private word; a mention and /ask are
// answered, a plain message is not; and the process stays up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';

const DIR = new URL('../fixtures/discord-payloads/', import.meta.url);
/** Discord's deadline for an interaction's first answer: a protocol check, not a speed figure. */
const DISCORD_ACK_DEADLINE_MS = 3000;

interface Entry {
  file: string;
  expect: 'inactive' | 'unknown-command' | 'autocomplete' | 'answer' | 'silent';
}
type Recorded =
  | { type: number; data: Record<string, unknown> }
  | { t: 'MESSAGE_CREATE'; d: { content: string } };

const entries = JSON.parse(readFileSync(new URL('index.json', DIR), 'utf8')) as Entry[];
const load = (file: string) => JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Recorded;

describe('recorded Discord payloads through the gateway', () => {
  let h: Harness;
  let guildId = '';
  let channelId = '';
  let userId = '';
  before(async () => {
    h = await startHarness({ discord: true });
    h.llm.setResponder(() => ({ content: 'From the recorded payloads: yes.' }));
    const d = h.discord;
    assert.ok(d);
    const guild = d.guilds[0];
    assert.ok(guild);
    guildId = guild.id;
    channelId = guild.channels[0]?.id ?? '';
    userId = d.users[0]?.id ?? '';
  });
  after(() => h.close());

  for (const e of entries) {
    test(`${e.file} → ${e.expect}`, async () => {
      const d = h.discord;
      assert.ok(d);
      const recorded = load(e.file);
      if ('t' in recorded) {
        const content = recorded.d.content.replace('<@BOT>', `<@${d.botUserId}>`);
        const fromBot = () => d.allMessages().filter((x) => x.author.id === d.botUserId);
        const before = fromBot().length;
        const m = await d.userMessage({ guildId, channelId, userId, content });
        await h.handled(m.id);
        if (e.expect === 'silent') assert.equal(fromBot().length, before, 'nothing posted');
        else await d.waitFor(() => (fromBot().length > before ? true : undefined));
        return;
      }
      const on = await d.userMessage({
        guildId,
        channelId,
        userId,
        content: 'a message to act on',
      });
      const { id } = await d.replayInteraction({
        type: recorded.type,
        data: recorded.data,
        channelId,
        userId,
        messageId: on.id,
      });
      const answered = await d.waitFor(() => {
        const r = d.interactions().find((i) => i.id === id);
        return r?.acknowledgedAt === undefined ? undefined : r;
      });
      assert.ok((answered.acknowledgedAt ?? 0) - answered.createdAt < DISCORD_ACK_DEADLINE_MS);
      if (e.expect === 'autocomplete') {
        assert.equal(answered.responseType, 8, 'answered with (no) choices');
        return;
      }
      if (e.expect === 'answer') return;
      const reply = await d.waitFor(() => d.interactions().find((i) => i.id === id)?.original);
      assert.equal(answered.ephemeral, true, 'told privately');
      if (e.expect === 'inactive') assert.equal(reply.content, 'This button is no longer active.');
      else assert.match(reply.content, /^I do not know the command /);
    });
  }

  test('the process is still up and serving after every recording', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    assert.equal(res.status, 200);
  });
});
