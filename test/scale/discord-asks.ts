// Tagged questions on the Discord emulator (see tagged-answers.ts): each a top-level mention in the
// first guild's first channel, from its second user; and which tags got a complete answer.
import type { DiscordEmulator } from '../emulators/discord/index.ts';
import type { DiscordMessage } from '../emulators/discord/types.ts';

export function askTagged(discord: DiscordEmulator, tag: string): Promise<DiscordMessage> {
  const guild = discord.guilds[0];
  if (!guild) throw new Error('the Discord emulator has no guild');
  return discord.userMessage({
    guildId: guild.id,
    channelId: guild.channels[0]?.id ?? '',
    userId: discord.users[1]?.id ?? '',
    content: `${tag} what is it?`,
    mentionsBot: true,
  });
}

/** The tag of every complete answer in the bot's threads, once per answer. */
export function answeredTags(discord: DiscordEmulator): string[] {
  return discord
    .threads()
    .flatMap((th) => discord.messages(th.id).map((m) => m.content))
    .flatMap((t) => [...t.matchAll(/END-(q[\w-]+)\b/g)].map((m) => m[1] ?? ''));
}
