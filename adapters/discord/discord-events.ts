// Discord → the bot's vocabulary (ARCHITECTURE.md, "Vocabulary"): a guild is a project (a DM is
// `dm:<user>`), a thread is a session, and the channel is the one that holds the thread.
import type { Channel } from 'discord.js';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

export function discordProjectId(guildId: string | null, userId: string): string {
  return guildId ?? `dm:${userId}`;
}

/**
 * Where a message or command is: a conversation (a thread or a DM), or a channel's top level, where
 * replies go to the channel itself (its id stands as the session) and an answer opens a thread.
 */
export function placeOf(
  channel: Channel,
  guildId: string | null,
  userId: string,
): { ref: ThreadRef; conversation: boolean } {
  const projectId = discordProjectId(guildId, userId);
  const thread = channel.isThread();
  return {
    ref: {
      platform: 'discord',
      projectId,
      channelId: (thread ? channel.parentId : undefined) ?? channel.id,
      sessionId: channel.id,
    },
    conversation: thread || channel.isDMBased(),
  };
}

export function stripBotMention(text: string, botId: string): string {
  return text
    .replace(new RegExp(`<@!?${botId}>`, 'g'), '')
    .replace(/\s+/g, ' ')
    .trim();
}
