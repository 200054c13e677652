// What an older version of the bot left behind in Discord: a button on one of its messages, a
// modal still open, commands still registered that this version dropped (a slash command with an
// autocompleted option, a message command, a user command). Discord delivers their interactions to
// this version, and shows "This interaction failed" unless each is answered within its 3 s (the
// emulator refuses a later callback): each gets a private "no longer active" or "I do not know the
// command", an autocomplete no choices; and an interaction of a type discord.js does not know is
// answered all the same.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DiscordEmulator, InteractionRecord } from '../emulators/discord/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

describe('Discord interactions this version has no handler for', () => {
  let h: Harness;
  let d: DiscordEmulator;
  let channelId = '';
  let userId = '';

  /** Registers a command as the older version did, over Discord's REST API. */
  async function registerOld(command: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${d.apiUrl}/v10/applications/${d.applicationId}/commands`, {
      method: 'POST',
      headers: { authorization: `Bot ${d.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(command),
    });
    assert.ok(res.ok, `registered ${String(command.name)}: ${res.status}`);
  }

  async function answered(id: string): Promise<InteractionRecord> {
    return d.waitFor(() => {
      const r = d.interactions().find((i) => i.id === id);
      return r?.acknowledgedAt === undefined ? undefined : r;
    });
  }

  /** The private reply a person sees. */
  async function notice(id: string): Promise<string> {
    const r = await answered(id);
    assert.equal(r.responseType, 4, 'answered with a message');
    assert.equal(r.ephemeral, true, 'seen by the person alone');
    const original = await d.waitFor(() => d.interactions().find((i) => i.id === id)?.original);
    return original.content;
  }

  before(async () => {
    h = await startHarness({ discord: true });
    assert.ok(h.discord);
    d = h.discord;
    channelId = d.guilds[0]?.channels[0]?.id ?? '';
    userId = d.users[0]?.id ?? '';
    await registerOld({
      name: 'report',
      description: 'A command an older version had',
      type: 1,
      options: [{ type: 3, name: 'topic', description: 'What about', autocomplete: true }],
    });
    await registerOld({ name: 'Translate this', type: 3 });
    await registerOld({ name: 'Profile', type: 2 });
  });
  after(() => h.close());

  async function oldButtonMessage(): Promise<string> {
    const res = await fetch(`${d.apiUrl}/v10/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bot ${d.botToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        content: 'Was this helpful?',
        components: [
          { type: 1, components: [{ type: 2, style: 1, label: 'Yes', custom_id: 'tm:fb:up:1' }] },
        ],
      }),
    });
    assert.ok(res.ok);
    return ((await res.json()) as { id: string }).id;
  }

  test('a button on an older version’s message', async () => {
    const messageId = await oldButtonMessage();
    const { id } = await d.componentInteraction({
      channelId,
      messageId,
      userId,
      customId: 'tm:fb:up:1',
    });
    assert.equal(await notice(id), 'This button is no longer active.');
  });

  test('a modal an older version opened, submitted now', async () => {
    const messageId = await oldButtonMessage();
    const { id } = await d.replayInteraction({
      type: 5,
      data: {
        custom_id: 'tm:fb:reason:1',
        components: [
          { type: 1, components: [{ type: 4, custom_id: 'reason', value: 'It missed the point' }] },
        ],
      },
      channelId,
      userId,
      messageId,
    });
    assert.equal(await notice(id), 'This button is no longer active.');
  });

  test('a slash command this version dropped', async () => {
    const { id } = await d.slashCommand({
      channelId,
      userId,
      name: 'report',
      options: [{ name: 'topic', type: 3, value: 'latency' }],
    });
    assert.equal(await notice(id), 'I do not know the command /report.');
  });

  test('a message command this version dropped', async () => {
    const on = await d.userMessage({ channelId, userId, content: 'bonjour à tous' });
    await h.handled(on.id);
    const { id } = await d.messageCommand({
      channelId,
      messageId: on.id,
      userId,
      name: 'Translate this',
    });
    assert.equal(await notice(id), 'I do not know the command Translate this.');
  });

  test('an autocomplete of a dropped command offers nothing', async () => {
    const { id } = await d.replayInteraction({
      type: 4,
      data: {
        name: 'report',
        type: 1,
        options: [{ type: 3, name: 'topic', value: 'lat', focused: true }],
      },
      channelId,
      userId,
    });
    const r = await answered(id);
    assert.equal(r.responseType, 8, 'an autocomplete result');
    assert.deepEqual(r.choices, [], 'with no choices');
  });

  test('a user command and a component of types discord.js does not know are answered too', async () => {
    const messageId = await oldButtonMessage();
    // A user command is known to discord.js; a component type newer than it is not (it drops it).
    const user = await d.replayInteraction({
      type: 2,
      data: {
        name: 'Profile',
        type: 2,
        target_id: userId,
        resolved: {
          users: { [userId]: { id: userId, username: 'alice', discriminator: '0', avatar: null } },
        },
      },
      channelId,
      userId,
    });
    assert.equal(await notice(user.id), 'I do not know the command Profile.');
    const newer = await d.replayInteraction({
      type: 3,
      data: { custom_id: 'tm:fb:up:1', component_type: 99 },
      channelId,
      userId,
      messageId,
    });
    assert.equal(await notice(newer.id), 'This button is no longer active.');
  });
});
