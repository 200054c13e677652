// Discord → the bot's vocabulary (ARCHITECTURE.md, "Vocabulary"): a guild is a project (a DM is
// `dm:<user>`, a user install `user:<user>`), a thread is a session, and the channel is the one
// that holds the thread.
import {
  type BaseInteraction,
  type Channel,
  type Client,
  InteractionContextType,
} from 'discord.js';
import type { Destination } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';

/**
 * Destination context keys of a user install's answer: everything goes through the interaction
 * (`interactionToken`), and `ephemeral` answers are seen by the person who asked alone.
 */
export const INTERACTION_ONLY = 'interactionOnly';
export const EPHEMERAL = 'ephemeral';

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

/**
 * Where an interaction of a user install belongs when the bot is not there itself (a server that
 * did not add it, a group DM, a DM between people): the installing person's own project, never the
 * server's, with one session per channel (the person's private conversation about that channel).
 * Undefined where the bot is present: a server install (`authorizing_integration_owners` has
 * "0") or the bot's own DM.
 */
export function userInstallPlace(i: BaseInteraction): ThreadRef | undefined {
  if (i.context === InteractionContextType.BotDM) return undefined;
  const owners = i.authorizingIntegrationOwners;
  if (owners.guildId !== null || owners.userId === null) return undefined;
  const channelId = i.channelId ?? i.id;
  return {
    platform: 'discord',
    projectId: `user:${owners.userId}`,
    channelId,
    sessionId: channelId,
  };
}

/**
 * A user install's answer: through the interaction only, and ephemeral — in someone else's server
 * or a group DM the bot cannot tell who reads a public reply, so only the asker does.
 */
export function userInstallDestination(ref: ThreadRef, interactionToken: string): Destination {
  return { ref, context: { interactionToken, [INTERACTION_ONLY]: true, [EPHEMERAL]: true } };
}

/**
 * Where an interaction is: a user install's own conversation (its channel is not the bot's), else
 * the channel it came from; undefined when that channel cannot be fetched.
 */
export async function interactionPlace(
  client: Client,
  i: BaseInteraction,
): Promise<ThreadRef | undefined> {
  const installed = userInstallPlace(i);
  if (installed) return installed;
  const channel = i.channel ?? (await client.channels.fetch(i.channelId ?? ''));
  return channel ? placeOf(channel, i.guildId, i.user.id).ref : undefined;
}
