// What people do in the emulated Discord: post messages (with mentions and attachments), start
// threads, run slash commands and click components. Each becomes the gateway event Discord
// would dispatch to the bot.
import { randomBytes } from 'node:crypto';
import type { APIChannel } from 'discord.js';
import { sanitizeFilename } from './cdn.ts';
import {
  type EmuCtx,
  emitInteraction,
  emitMessageCreate,
  type InteractionState,
} from './context.ts';
import { buildMessage } from './message-factory.ts';
import { DM_PERMS } from './permissions.ts';
import { snowflake } from './snowflake.ts';
import type { ChannelRec, StoredMessage } from './store.ts';
import { createThread } from './threads.ts';
import type {
  CommandOptionInput,
  ComponentInput,
  InteractionHandle,
  SlashCommandInput,
  UserMessageInput,
  UserThreadInput,
} from './types.ts';

const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** The channel a user acts in: a guild channel or thread, else the user's DM with the bot. */
function resolveChannel(
  ctx: EmuCtx,
  channelId: string,
  userId: string,
  guildId?: string,
): ChannelRec {
  const known = ctx.world.channels.get(channelId);
  if (known !== undefined) {
    if (guildId !== undefined && known.guildId !== guildId) {
      throw new Error(`Discord emulator: channel ${channelId} is not in guild ${guildId}`);
    }
    return known;
  }
  if (guildId !== undefined) {
    throw new Error(`Discord emulator: unknown channel ${channelId} in guild ${guildId}`);
  }
  return ctx.world.dmChannel(userId, channelId);
}

export function userMessage(ctx: EmuCtx, m: UserMessageInput): StoredMessage {
  const channel = resolveChannel(ctx, m.channelId, m.userId, m.guildId);
  ctx.world.user(m.userId);
  const mention = `<@${ctx.botId}>`;
  const content =
    m.mentionsBot === true && !m.content.includes(mention) ? `${mention} ${m.content}` : m.content;
  const built = buildMessage(ctx, {
    channel,
    authorId: m.userId,
    payload: {
      content,
      ...(m.replyTo !== undefined ? { message_reference: { message_id: m.replyTo } } : {}),
    },
    files: [],
    allowEmpty: (m.attachments ?? []).length > 0,
  });
  if (!('msg' in built)) {
    throw new Error(`Discord emulator: user message refused: ${JSON.stringify(built.body)}`);
  }
  built.files = (m.attachments ?? []).map((a) => ctx.cdn.add(a, 'attachments', channel.id));
  ctx.world.addMessage(built);
  emitMessageCreate(ctx, built);
  return built;
}

export function userThread(ctx: EmuCtx, t: UserThreadInput): ChannelRec {
  const parent = resolveChannel(ctx, t.channelId, t.userId);
  if (parent.guildId === undefined || (parent.type !== 0 && parent.type !== 5)) {
    throw new Error(`Discord emulator: cannot start a thread in channel ${parent.id}`);
  }
  if (t.messageId !== undefined && ctx.world.message(parent.id, t.messageId) === undefined) {
    throw new Error(`Discord emulator: no message ${t.messageId} in channel ${parent.id}`);
  }
  return createThread(ctx, parent, {
    name: t.name,
    type: parent.type === 5 ? 10 : 11,
    ownerId: t.userId,
    messageId: t.messageId,
  });
}

export function slashCommand(ctx: EmuCtx, c: SlashCommandInput): InteractionHandle {
  const channel = resolveChannel(ctx, c.channelId, c.userId, c.guildId);
  const guildId = channel.guildId;
  const command = [
    ...(guildId === undefined ? [] : (ctx.commands.get(guildId) ?? [])),
    ...(ctx.commands.get('global') ?? []),
  ].find((x) => x.data.name === c.name && (x.data.type ?? 1) === 1);
  if (command === undefined) {
    throw new Error(
      `Discord emulator: /${c.name} is not registered (global or guild ${guildId ?? '-'})`,
    );
  }
  const files = (c.attachments ?? []).map((a) =>
    ctx.cdn.add(a, 'ephemeral-attachments', ctx.applicationId),
  );
  const unused = [...files];
  const mapOptions = (options: CommandOptionInput[]): Record<string, unknown>[] =>
    options.map((o) => {
      const out: Record<string, unknown> = { name: o.name, type: o.type };
      if (o.options !== undefined) out.options = mapOptions(o.options);
      if (o.type === 11) {
        // Attachment options carry the attachment's id; the file itself is in data.resolved.
        const wanted = typeof o.value === 'string' ? sanitizeFilename(o.value) : undefined;
        const i =
          o.value === undefined
            ? 0
            : unused.findIndex((f) => f.filename === wanted || f.id === o.value);
        const file = i < 0 ? undefined : unused.splice(i, 1)[0];
        if (file === undefined) {
          throw new Error(`Discord emulator: no attachment for option ${o.name}`);
        }
        out.value = file.id;
      } else if (o.value !== undefined) {
        out.value = o.value;
      }
      return out;
    });
  const data: Record<string, unknown> = { id: command.id, name: c.name, type: 1 };
  if (c.options !== undefined) data.options = mapOptions(c.options);
  if (files.length > 0) {
    data.resolved = {
      attachments: Object.fromEntries(files.map((f) => [f.id, ctx.cdn.describe(f)])),
    };
  }
  if (guildId !== undefined && ctx.commands.get(guildId)?.includes(command) === true) {
    data.guild_id = guildId;
  }
  return createInteraction(ctx, {
    type: 2,
    name: c.name,
    channel,
    userId: c.userId,
    data,
    memberPermissions: c.memberPermissions,
  });
}

export function componentInteraction(ctx: EmuCtx, c: ComponentInput): InteractionHandle {
  const channel = resolveChannel(ctx, c.channelId, c.userId);
  const message = ctx.world.message(channel.id, c.messageId);
  if (message === undefined)
    throw new Error(`Discord emulator: no message ${c.messageId} in ${channel.id}`);
  const data: Record<string, unknown> = {
    custom_id: c.customId,
    component_type: c.componentType ?? 2,
  };
  if (c.values !== undefined) data.values = c.values;
  return createInteraction(ctx, {
    type: 3,
    name: c.customId,
    channel,
    userId: c.userId,
    data,
    message: ctx.render.message(message),
    messageId: message.msg.id,
  });
}

interface NewInteraction {
  type: number;
  name: string;
  channel: ChannelRec;
  userId: string;
  data: Record<string, unknown>;
  memberPermissions?: string | undefined;
  message?: unknown;
  messageId?: string;
}

function createInteraction(ctx: EmuCtx, n: NewInteraction): InteractionHandle {
  const id = snowflake();
  const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString('hex')}`).toString(
    'base64url',
  );
  const user = ctx.render.user(ctx.world.user(n.userId));
  const guild =
    n.channel.guildId === undefined ? undefined : ctx.world.guilds.get(n.channel.guildId);
  const payload: Record<string, unknown> = {
    id,
    application_id: ctx.applicationId,
    type: n.type,
    data: n.data,
    channel: ctx.render.channel(n.channel) as APIChannel,
    channel_id: n.channel.id,
    token,
    version: 1,
    locale: 'en-US',
    entitlements: [],
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
  if (guild !== undefined) {
    const perms = n.memberPermissions ?? ctx.render.permissions(guild, n.userId).toString();
    payload.guild_id = guild.id;
    payload.guild = { id: guild.id, locale: 'en-US', features: [] };
    payload.guild_locale = 'en-US';
    payload.member = { ...ctx.render.member(guild, n.userId), permissions: perms };
    payload.app_permissions = ctx.render.permissions(guild, ctx.botId).toString();
    payload.authorizing_integration_owners = { 0: guild.id };
    payload.context = 0;
  } else {
    payload.user = user;
    payload.app_permissions = DM_PERMS.toString();
    payload.authorizing_integration_owners = { 0: '0' };
    payload.context = 1;
  }
  if (n.message !== undefined) payload.message = n.message;
  const state: InteractionState = {
    id,
    token,
    type: n.type,
    name: n.name,
    channelId: n.channel.id,
    userId: n.userId,
    createdAt: Date.now(),
    followupIds: [],
    ephemeral: false,
  };
  if (guild !== undefined) state.guildId = guild.id;
  if (n.messageId !== undefined) state.messageId = n.messageId;
  ctx.interactions.set(id, state);
  emitInteraction(ctx, payload);
  return { id, token };
}
