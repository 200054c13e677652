// State shared by the REST routes and the user actions, and the gateway events they cause.
// Events are filtered per session by intent, as Discord does: MESSAGE_CREATE needs
// GUILD_MESSAGES (or DIRECT_MESSAGES), and without MESSAGE_CONTENT the content, embeds,
// attachments and components arrive empty unless the bot is mentioned, it is a DM, or the bot
// wrote the message.
import type { Cdn } from './cdn.ts';
import type { Renderer } from './entities.ts';
import { type Gateway, Intents } from './gateway.ts';
import type { ChannelRec, StoredMessage, World } from './store.ts';

export interface InteractionState {
  id: string;
  token: string;
  type: number;
  name: string;
  channelId: string;
  guildId?: string;
  userId: string;
  createdAt: number;
  acknowledgedAt?: number;
  responseType?: number;
  /** The message a component interaction was attached to. */
  messageId?: string;
  originalId?: string;
  followupIds: string[];
  ephemeral: boolean;
  /** What a type 9 callback showed. */
  modal?: Record<string, unknown>;
  /** What a type 8 (autocomplete result) callback offered. */
  choices?: unknown[];
  data?: Record<string, unknown>;
  /** The member permissions the test gave the invoker, passed on to a modal's submission. */
  memberPermissions?: string;
  /** `authorizing_integration_owners`: "0" → the server (or "0" in the bot's DM), "1" → the user. */
  owners: Record<string, string>;
  context: number;
}

export interface CommandRec {
  id: string;
  version: string;
  data: Record<string, unknown>;
}

export interface EmuCtx {
  world: World;
  render: Renderer;
  cdn: Cdn;
  gateway: Gateway;
  botToken: string;
  applicationId: string;
  /** GATEWAY_MESSAGE_CONTENT_LIMITED (1 << 19) while the Message Content intent is enabled. */
  applicationFlags: number;
  botId: string;
  ackWindowMs: number;
  interactions: Map<string, InteractionState>;
  /** Keyed by 'global' or a guild id. */
  commands: Map<string, CommandRec[]>;
  sessionStartRemaining: number;
  gatewayUrl(): string;
}

// A public or private thread's messages count against GUILD_MESSAGES like its parent's.
function messageIntent(ctx: EmuCtx, m: StoredMessage): number {
  return m.guildId === undefined && ctx.world.channels.get(m.msg.channel_id)?.type === 1
    ? Intents.DirectMessages
    : Intents.GuildMessages;
}

function canSeeContent(ctx: EmuCtx, m: StoredMessage, intents: number): boolean {
  if ((intents & Intents.MessageContent) !== 0) return true;
  if (m.guildId === undefined) return true;
  if (m.msg.author.id === ctx.botId) return true;
  return m.msg.mentions.some((u) => u.id === ctx.botId);
}

/** The bot gets no events from where it is not (a server that did not add it, a group DM). */
function botSees(ctx: EmuCtx, m: StoredMessage): boolean {
  const c = ctx.world.channels.get(m.msg.channel_id);
  return c === undefined || ctx.world.botCanAccess(c);
}

function messageShaper(ctx: EmuCtx, m: StoredMessage) {
  const intent = messageIntent(ctx, m);
  const data = ctx.render.messageEvent(m);
  const sees = botSees(ctx, m);
  return (intents: number) => {
    if (!sees || (intents & intent) === 0) return undefined;
    if (canSeeContent(ctx, m, intents)) return data;
    return { ...data, content: '', embeds: [], attachments: [], components: [] };
  };
}

export function emitMessageCreate(ctx: EmuCtx, m: StoredMessage): void {
  if (m.ephemeral) return;
  ctx.gateway.dispatch('MESSAGE_CREATE', messageShaper(ctx, m));
}

export function emitMessageUpdate(ctx: EmuCtx, m: StoredMessage): void {
  if (m.ephemeral) return;
  ctx.gateway.dispatch('MESSAGE_UPDATE', messageShaper(ctx, m));
}

export function emitMessageDelete(ctx: EmuCtx, m: StoredMessage): void {
  if (m.ephemeral || !botSees(ctx, m)) return;
  const intent = messageIntent(ctx, m);
  const d: Record<string, unknown> = { id: m.msg.id, channel_id: m.msg.channel_id };
  if (m.guildId !== undefined) d.guild_id = m.guildId;
  ctx.gateway.dispatch('MESSAGE_DELETE', (intents) => ((intents & intent) === 0 ? undefined : d));
}

export function emitThreadCreate(ctx: EmuCtx, thread: ChannelRec): void {
  const d = { ...ctx.render.channel(thread), newly_created: true };
  ctx.gateway.dispatch('THREAD_CREATE', (intents) =>
    (intents & Intents.Guilds) === 0 ? undefined : d,
  );
}

export function emitChannelCreate(ctx: EmuCtx, channel: ChannelRec): void {
  const d = ctx.render.channel(channel);
  ctx.gateway.dispatch('CHANNEL_CREATE', (intents) =>
    (intents & Intents.Guilds) === 0 ? undefined : d,
  );
}

export function emitChannelUpdate(ctx: EmuCtx, channel: ChannelRec): void {
  const d = ctx.render.channel(channel);
  ctx.gateway.dispatch('CHANNEL_UPDATE', (intents) =>
    (intents & Intents.Guilds) === 0 ? undefined : d,
  );
}

export function emitReaction(
  ctx: EmuCtx,
  t: 'MESSAGE_REACTION_ADD' | 'MESSAGE_REACTION_REMOVE',
  m: StoredMessage,
  userId: string,
  emoji: { id: string | null; name: string },
): void {
  const intent =
    m.guildId === undefined ? Intents.DirectMessageReactions : Intents.GuildMessageReactions;
  const d: Record<string, unknown> = {
    user_id: userId,
    channel_id: m.msg.channel_id,
    message_id: m.msg.id,
    emoji,
    burst: false,
    type: 0,
  };
  if (m.guildId !== undefined) d.guild_id = m.guildId;
  if (t === 'MESSAGE_REACTION_ADD') d.message_author_id = m.msg.author.id;
  ctx.gateway.dispatch(t, (intents) => ((intents & intent) === 0 ? undefined : d));
}

export function emitInteraction(ctx: EmuCtx, payload: unknown): void {
  // Interactions need no intent: every session of the application gets them.
  ctx.gateway.dispatch('INTERACTION_CREATE', () => payload);
}
