// Discord → the bot's vocabulary (ARCHITECTURE.md, "Vocabulary"): a guild is a project (a DM is `dm:<user>`), a
// thread is a session, and the channel is the one that holds the thread.
import type { Channel } from 'discord.js';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

export function discordProjectId(guildId: string | null, userId: string): string {
  return guildId ?? `dm:${userId}`;
}

/** The conversation a channel is, when it is one: a thread or a DM. Top-level channels are not. */
export function refForChannel(
  channel: Channel,
  guildId: string | null,
  userId: string,
): ThreadRef | undefined {
  const projectId = discordProjectId(guildId, userId);
  if (channel.isThread()) {
    return {
      platform: 'discord',
      projectId,
      channelId: channel.parentId ?? channel.id,
      sessionId: channel.id,
    };
  }
  if (channel.isDMBased())
    return { platform: 'discord', projectId, channelId: channel.id, sessionId: channel.id };
  return undefined;
}

export function stripBotMention(text: string, botId: string): string {
  return text
    .replace(new RegExp(`<@!?${botId}>`, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
}
