// The worker opens a queued top-level mention's thread; a re-run of the job (its worker died after
// opening it) finds the same thread instead of failing or opening a second one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REST } from 'discord.js';
import { openThreadFrom, topLevelParts } from '../../adapters/discord/discord-thread-open.ts';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

let emu: DiscordEmulator;

before(async () => {
  emu = await startDiscordEmulator();
});

after(async () => {
  await emu?.close();
});

test('opening the thread of a message twice gives the one thread named ahead', async () => {
  const guild = emu.guilds[0];
  assert.ok(guild);
  const channelId = guild.channels[0]?.id ?? '';
  const msg = await emu.userMessage({
    guildId: guild.id,
    channelId,
    userId: emu.users[1]?.id ?? '',
    content: 'what is it?',
    mentionsBot: true,
  });
  const rest = new REST({ api: emu.apiUrl, retries: 0 }).setToken(emu.botToken);
  const ref = {
    platform: 'discord' as const,
    projectId: guild.id,
    channelId,
    sessionId: channelId,
  };
  const o = { rest, autoArchiveMinutes: 1440 };
  const ahead = topLevelParts(
    { ...o, replyChain: async () => [] },
    ref,
    { id: msg.id, reference: null },
    'what is it?',
  );
  const first = await openThreadFrom(o, ref, msg.id, 'what is it?');
  const again = await openThreadFrom(o, ref, msg.id, 'what is it?');
  assert.equal(first.ref.sessionId, ahead.threadAhead?.ref.sessionId, 'the thread named ahead');
  assert.deepEqual(again, first);
  assert.equal(emu.threads().filter((t) => t.id === first.ref.sessionId).length, 1);
});
