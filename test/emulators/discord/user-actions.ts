// What people do in the emulated Discord: post messages (with mentions and attachments), start
// threads, run slash commands and click components. Each becomes the gateway event Discord
// would dispatch to the bot.
import { randomBytes } from 'node:crypto';
import type { APIChannel } from 'discord.js';
import { sanitizeFilename } from './cdn.ts';
import { componentOf } from './component-ids.ts';
import {
  type CommandRec,
  type EmuCtx,
  emitInteraction,
  emitMessageCreate,
  emitMessageDelete,
  emitMessageUpdate,
  type InteractionState,
} from './context.ts';
import { buildMessage, editMessage } from './message-factory.ts';
import { DM_PERMS, Perm } from './permissions.ts';
import { snowflake } from './snowflake.ts';
import type { ChannelRec, StoredMessage } from './store.ts';
import { createThread } from './threads.ts';
import type {
  CommandOptionInput,
  ComponentInput,
  InstallType,
  InteractionHandle,
  MessageCommandInput,
  ModalSubmitInput,
  SlashCommandInput,
  UserMessageInput,
  UserThreadInput,
} from './types.ts';

const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;
// MessageFlags.HAS_SNAPSHOT: the message carries message_snapshots (a forward).
const HAS_SNAPSHOT = 1 << 14;

/** The channel a user acts in: a guild channel or thread, else the user's DM with the bot. */
export function resolveChannel(
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
  const forwarded =
    m.forwardOf === undefined
      ? undefined
      : ctx.world.message(m.forwardOf.channelId, m.forwardOf.messageId);
  if (m.forwardOf !== undefined && forwarded === undefined) {
    throw new Error(
      `Discord emulator: no message ${m.forwardOf.messageId} in ${m.forwardOf.channelId} to forward`,
    );
  }
  const built = buildMessage(ctx, {
    channel,
    authorId: m.userId,
    payload: {
      // A forward has no text of its own: the forwarded message is in message_snapshots.
      content: forwarded === undefined ? content : '',
      ...(m.replyTo !== undefined ? { message_reference: { message_id: m.replyTo } } : {}),
    },
    files: [],
    allowEmpty: (m.attachments ?? []).length > 0 || forwarded !== undefined,
  });
  if (!('msg' in built)) {
    throw new Error(`Discord emulator: user message refused: ${JSON.stringify(built.body)}`);
  }
  built.files = (m.attachments ?? []).map((a) => ctx.cdn.add(a, 'attachments', channel.id));
  if (forwarded !== undefined) {
    const o = ctx.render.message(forwarded, 1);
    built.msg.message_reference = {
      type: 1,
      message_id: forwarded.msg.id,
      channel_id: forwarded.msg.channel_id,
      ...(forwarded.guildId !== undefined ? { guild_id: forwarded.guildId } : {}),
    };
    built.msg.message_snapshots = [
      {
        message: {
          type: o.type,
          content: o.content,
          embeds: o.embeds,
          attachments: o.attachments,
          timestamp: o.timestamp,
          edited_timestamp: o.edited_timestamp,
          flags: o.flags ?? 0,
          mentions: o.mentions,
          mention_roles: o.mention_roles,
          components: o.components ?? [],
        },
      },
    ] as NonNullable<typeof built.msg.message_snapshots>;
    built.msg.flags = (built.msg.flags ?? 0) | HAS_SNAPSHOT;
  }
  ctx.world.addMessage(built);
  emitMessageCreate(ctx, built);
  return built;
}

/** A person's own message, live; the bot's are edited through REST. */
function peopleMessage(ctx: EmuCtx, channelId: string, messageId: string): StoredMessage {
  const m = ctx.world.message(channelId, messageId);
  if (m === undefined) throw new Error(`Discord emulator: no message ${messageId} in ${channelId}`);
  if (m.msg.author.id === ctx.botId || m.msg.webhook_id !== undefined) {
    throw new Error(`Discord emulator: ${messageId} is the bot's; people edit their own messages`);
  }
  return m;
}

export function editUserMessage(
  ctx: EmuCtx,
  channelId: string,
  messageId: string,
  content: string,
): StoredMessage {
  const m = peopleMessage(ctx, channelId, messageId);
  const refused = editMessage(ctx, m, { content }, []);
  if (refused !== undefined) {
    throw new Error(`Discord emulator: edit refused: ${JSON.stringify(refused.body)}`);
  }
  emitMessageUpdate(ctx, m);
  return m;
}

export function deleteUserMessage(ctx: EmuCtx, channelId: string, messageId: string): void {
  const m = peopleMessage(ctx, channelId, messageId);
  m.deleted = true;
  const ch = ctx.world.channels.get(channelId);
  // A thread's message_count goes down with deletions (total_message_sent does not).
  if (ch !== undefined && ch.messageCount > 0 && ch.type >= 10 && ch.type <= 12) {
    ch.messageCount -= 1;
  }
  emitMessageDelete(ctx, m);
}

/** Answers for a modal as Discord sends them: the modal's layout with values filled in. */
function submittedComponents(
  modal: Record<string, unknown>,
  values: Record<string, string | string[]>,
): unknown[] {
  let nextId = 1;
  const used = new Set<string>();
  const fill = (raw: unknown): Record<string, unknown> => {
    const c = raw as Record<string, unknown>;
    const id = typeof c.id === 'number' ? c.id : nextId;
    nextId = Math.max(nextId, id) + 1;
    if (Array.isArray(c.components)) {
      return { type: c.type, id, components: c.components.map(fill) };
    }
    if (c.component !== undefined) return { type: c.type, id, component: fill(c.component) };
    const out: Record<string, unknown> = { type: c.type, id };
    if (typeof c.custom_id !== 'string') return out;
    out.custom_id = c.custom_id;
    used.add(c.custom_id);
    const v = values[c.custom_id];
    if (c.type === 4) out.value = typeof v === 'string' ? v : (c.value ?? '');
    else out.values = v === undefined ? [] : Array.isArray(v) ? v : [v];
    return out;
  };
  const out = ((modal.components as unknown[]) ?? []).map(fill);
  const unknown = Object.keys(values).filter((k) => !used.has(k));
  if (unknown.length > 0) {
    throw new Error(`Discord emulator: the modal has no input ${unknown.join(', ')}`);
  }
  return out;
}

export function modalSubmit(ctx: EmuCtx, m: ModalSubmitInput): InteractionHandle {
  const opener = ctx.interactions.get(m.interactionId);
  if (opener?.modal === undefined) {
    throw new Error(`Discord emulator: interaction ${m.interactionId} showed no modal`);
  }
  const channel = ctx.world.channels.get(opener.channelId);
  if (channel === undefined) throw new Error(`Discord emulator: no channel ${opener.channelId}`);
  const customId = String(opener.modal.custom_id);
  const data = { custom_id: customId, components: submittedComponents(opener.modal, m.values) };
  const message =
    opener.messageId === undefined ? undefined : ctx.world.message(channel.id, opener.messageId);
  return createInteraction(ctx, {
    type: 5,
    name: customId,
    channel,
    userId: opener.userId,
    data,
    memberPermissions: m.memberPermissions ?? opener.memberPermissions,
    at: {
      install:
        opener.owners['1'] !== undefined && opener.owners['0'] === undefined ? 'user' : 'guild',
      context: opener.context,
    },
    ...(opener.owners['1'] !== undefined ? { owner: opener.owners['1'] } : {}),
    ...(message === undefined
      ? {}
      : { message: ctx.render.message(message), messageId: message.msg.id }),
  });
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

/** Which installation an interaction comes through, and where (`context`). */
interface Installation {
  install: InstallType;
  context: number;
}

/**
 * The installation a person uses here: the server's where the bot is present (or the bot's own
 * DM), else their own user install. A server install cannot be used where the bot is not.
 */
export function installationFor(
  ctx: EmuCtx,
  channel: ChannelRec,
  wanted?: InstallType,
): Installation {
  const context = channel.type === 3 ? 2 : channel.type === 1 ? 1 : 0;
  const present = ctx.world.botCanAccess(channel);
  const install = wanted ?? (present ? 'guild' : 'user');
  if (install === 'guild' && !present) {
    throw new Error(`Discord emulator: the app is not installed where channel ${channel.id} is`);
  }
  return { install, context };
}

/**
 * The command Discord offers here, as the client's picker would: a server's own commands only
 * through its install; a global command where its `integration_types` (default: the server
 * install) and `contexts` (default: everywhere) include this installation and place.
 */
function offeredCommand(
  ctx: EmuCtx,
  channel: ChannelRec,
  at: Installation,
  match: (data: Record<string, unknown>) => boolean,
): CommandRec | undefined {
  const guildId = channel.guildId;
  const own =
    at.install === 'guild' && guildId !== undefined ? (ctx.commands.get(guildId) ?? []) : [];
  const global = (ctx.commands.get('global') ?? []).filter((x) => {
    const types = Array.isArray(x.data.integration_types)
      ? (x.data.integration_types as number[])
      : [0];
    const contexts = Array.isArray(x.data.contexts) ? (x.data.contexts as number[]) : [0, 1, 2];
    return types.includes(at.install === 'user' ? 1 : 0) && contexts.includes(at.context);
  });
  return [...own, ...global].find((x) => match(x.data));
}

export function slashCommand(ctx: EmuCtx, c: SlashCommandInput): InteractionHandle {
  const channel = resolveChannel(ctx, c.channelId, c.userId, c.guildId);
  const guildId = channel.guildId;
  const at = installationFor(ctx, channel, c.install);
  const command = offeredCommand(
    ctx,
    channel,
    at,
    (d) => d.name === c.name && ((d.type as number | undefined) ?? 1) === 1,
  );
  if (command === undefined) {
    throw new Error(
      `Discord emulator: /${c.name} is not offered to a ${at.install} install in context ${at.context} (global or guild ${guildId ?? '-'})`,
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
    at,
  });
}

/**
 * A message command from a message's Apps menu: an APPLICATION_COMMAND interaction whose data has
 * type 3, the message as `target_id` and the message itself in `resolved.messages`.
 */
export function messageCommand(ctx: EmuCtx, c: MessageCommandInput): InteractionHandle {
  const channel = resolveChannel(ctx, c.channelId, c.userId);
  const guildId = channel.guildId;
  const at = installationFor(ctx, channel, c.install);
  const command = offeredCommand(ctx, channel, at, (d) => d.name === c.name && d.type === 3);
  if (command === undefined) {
    throw new Error(
      `Discord emulator: message command "${c.name}" is not offered to a ${at.install} install in context ${at.context}`,
    );
  }
  const message = ctx.world.message(channel.id, c.messageId);
  if (message === undefined)
    throw new Error(`Discord emulator: no message ${c.messageId} in ${channel.id}`);
  const data: Record<string, unknown> = {
    id: command.id,
    name: c.name,
    type: 3,
    target_id: message.msg.id,
    resolved: { messages: { [message.msg.id]: ctx.render.message(message) } },
  };
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
    at,
  });
}

export function componentInteraction(ctx: EmuCtx, c: ComponentInput): InteractionHandle {
  const channel = resolveChannel(ctx, c.channelId, c.userId);
  const message = ctx.world.message(channel.id, c.messageId);
  if (message === undefined)
    throw new Error(`Discord emulator: no message ${c.messageId} in ${channel.id}`);
  // Discord sends a component interaction only for a component the message shows; a stale or
  // invented payload goes through replayInteraction instead.
  const component = componentOf(message.msg.components ?? [], c.customId);
  if (component === undefined) {
    throw new Error(
      `Discord emulator: message ${message.msg.id} has no component with custom_id "${c.customId}"`,
    );
  }
  const type = c.componentType ?? 2;
  if (component.type !== type) {
    throw new Error(
      `Discord emulator: component "${c.customId}" is of type ${String(component.type)}, not ${type}`,
    );
  }
  const data: Record<string, unknown> = { custom_id: c.customId, component_type: type };
  if (typeof component.id === 'number') data.id = component.id;
  if (c.values !== undefined) data.values = c.values;
  // A component on an answer comes through the installation that posted the answer.
  const source =
    message.interactionId === undefined ? undefined : ctx.interactions.get(message.interactionId);
  return createInteraction(ctx, {
    type: 3,
    name: c.customId,
    channel,
    userId: c.userId,
    data,
    message: ctx.render.message(message),
    messageId: message.msg.id,
    memberPermissions: c.memberPermissions,
    at: {
      install:
        source?.owners['1'] !== undefined && source.owners['0'] === undefined ? 'user' : 'guild',
      context: source?.context ?? installationFor(ctx, channel).context,
    },
    ...(source?.owners['1'] !== undefined ? { owner: source.owners['1'] } : {}),
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
  at: Installation;
  /** The installing user, when a component or modal continues someone's user install. */
  owner?: string;
}

// A user install's permissions in (G)DMs with other people (the interaction object's
// `app_permissions`); used for a server that did not add the bot as well.
const USER_INSTALL_PERMS = Perm.AttachFiles | Perm.EmbedLinks | Perm.MentionEveryone;

export function createInteraction(ctx: EmuCtx, n: NewInteraction): InteractionHandle {
  const id = snowflake();
  const token = Buffer.from(`interaction:${id}:${randomBytes(48).toString('hex')}`).toString(
    'base64url',
  );
  const user = ctx.render.user(ctx.world.user(n.userId));
  const guild =
    n.channel.guildId === undefined ? undefined : ctx.world.guilds.get(n.channel.guildId);
  // A key per installation the interaction is authorized through (strings, as Discord sends them).
  const owners: Record<string, string> =
    n.at.install === 'user'
      ? { 1: n.owner ?? n.userId }
      : { 0: guild === undefined ? '0' : guild.id };
  const byUser = n.at.install === 'user';
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
    payload.app_permissions = (
      byUser ? USER_INSTALL_PERMS : ctx.render.permissions(guild, ctx.botId)
    ).toString();
  } else {
    payload.user = user;
    payload.app_permissions = (n.at.context === 1 ? DM_PERMS : USER_INSTALL_PERMS).toString();
  }
  payload.authorizing_integration_owners = owners;
  payload.context = n.at.context;
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
    data: n.data,
    owners,
    context: n.at.context,
  };
  if (n.memberPermissions !== undefined) state.memberPermissions = n.memberPermissions;
  if (guild !== undefined) state.guildId = guild.id;
  if (n.messageId !== undefined) state.messageId = n.messageId;
  ctx.interactions.set(id, state);
  emitInteraction(ctx, payload);
  return { id, token };
}
