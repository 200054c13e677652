// Building and editing messages from API payloads, with Discord's validation: 2000 characters,
// no empty messages, embed limits, at most 10 files of 10 MiB, allowed_mentions rules. Mentions
// are parsed from the content and filtered through allowed_mentions, so `mentions` shows who
// would actually be pinged.
import type { APIAllowedMentions, APIEmbed, APIMessage, APIUser } from 'discord.js';
import { type Answer, Errors, formError } from './api-errors.ts';
import type { CdnFile } from './cdn.ts';
import { numberComponents } from './component-ids.ts';
import type { EmuCtx } from './context.ts';
import { validatePayload } from './message-validation.ts';
import { Perm } from './permissions.ts';
import type { UploadedFile } from './request-body.ts';
import { snowflake } from './snowflake.ts';
import { type ChannelRec, isThread, type StoredMessage } from './store.ts';

// Flags a poster may set; EPHEMERAL only through interactions.
const SETTABLE_FLAGS = 4 | 4096 | 8192 | (1 << 15);
export const EPHEMERAL = 64;
export const LOADING = 128;

export interface MessagePayload {
  content?: unknown;
  embeds?: unknown;
  components?: unknown;
  allowed_mentions?: unknown;
  message_reference?: { message_id?: string; channel_id?: string; fail_if_not_exists?: boolean };
  flags?: unknown;
  nonce?: unknown;
  tts?: unknown;
  attachments?: unknown;
  sticker_ids?: unknown;
  poll?: unknown;
}

export interface BuildInput {
  channel: ChannelRec;
  authorId: string;
  payload: MessagePayload;
  files: UploadedFile[];
  type?: number;
  allowEphemeral?: boolean;
  /** Interaction responses may be empty while deferred. */
  allowEmpty?: boolean;
  extra?: Partial<APIMessage>;
}

/** A validated message ready to store, or the error Discord would answer with. */
export function buildMessage(ctx: EmuCtx, input: BuildInput): StoredMessage | Answer {
  const { channel, payload } = input;
  const invalid = validatePayload(payload, input.files);
  if (invalid !== undefined) return invalid;
  const content = typeof payload.content === 'string' ? payload.content : '';
  const embeds = Array.isArray(payload.embeds) ? (payload.embeds as APIEmbed[]) : [];
  const hasBody =
    content.trim() !== '' ||
    embeds.length > 0 ||
    input.files.length > 0 ||
    (Array.isArray(payload.components) && payload.components.length > 0) ||
    (Array.isArray(payload.sticker_ids) && payload.sticker_ids.length > 0) ||
    payload.poll !== undefined;
  if (!hasBody && input.allowEmpty !== true) return Errors.emptyMessage();

  let replyTo: StoredMessage | undefined;
  const ref = payload.message_reference;
  if (ref?.message_id !== undefined) {
    replyTo = ctx.world.message(ref.channel_id ?? channel.id, ref.message_id);
    if (replyTo === undefined && ref.fail_if_not_exists !== false) {
      return formError(
        ['message_reference'],
        'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
        'Unknown message',
      );
    }
  }
  const allowed = payload.allowed_mentions as APIAllowedMentions | undefined;
  const id = snowflake();
  let flags = typeof payload.flags === 'number' ? payload.flags & SETTABLE_FLAGS : 0;
  const ephemeral = input.allowEphemeral === true && (Number(payload.flags) & EPHEMERAL) !== 0;
  if (ephemeral) flags |= EPHEMERAL;
  const author = ctx.world.user(input.authorId);
  const msg: APIMessage = {
    id,
    channel_id: channel.id,
    author: ctx.render.user(author),
    content,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: payload.tts === true,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds,
    pinned: false,
    type: input.type ?? (replyTo !== undefined ? 19 : 0),
    flags,
    components: Array.isArray(payload.components)
      ? (numberComponents(payload.components) as never[])
      : [],
    ...input.extra,
  };
  if (typeof payload.nonce === 'string' || typeof payload.nonce === 'number') {
    msg.nonce = payload.nonce;
  }
  if (isThread(channel.type)) msg.position = channel.totalSent;
  if (replyTo !== undefined) {
    msg.message_reference = {
      type: 0,
      message_id: replyTo.msg.id,
      channel_id: replyTo.msg.channel_id,
      ...(replyTo.guildId !== undefined ? { guild_id: replyTo.guildId } : {}),
    };
  }
  const stored: StoredMessage = {
    msg,
    files: [],
    ephemeral,
    deleted: false,
  };
  if (channel.guildId !== undefined) stored.guildId = channel.guildId;
  if (allowed !== undefined) stored.allowedMentions = allowed;
  if (replyTo !== undefined) stored.replyToId = replyTo.msg.id;
  stored.files = uploadFiles(ctx, channel, input.files, payload.attachments);
  applyMentions(ctx, stored, allowed, replyTo);
  return stored;
}

/** Applies an edit payload in place; an Answer when Discord would refuse it. */
export function editMessage(
  ctx: EmuCtx,
  stored: StoredMessage,
  payload: MessagePayload,
  files: UploadedFile[],
): Answer | undefined {
  const invalid = validatePayload(payload, files);
  if (invalid !== undefined) return invalid;
  const msg = stored.msg;
  if (typeof payload.content === 'string' || payload.content === null) {
    msg.content = payload.content ?? '';
  }
  if (Array.isArray(payload.embeds)) msg.embeds = payload.embeds as APIEmbed[];
  if (Array.isArray(payload.components)) {
    msg.components = numberComponents(payload.components) as never[];
  }
  if (typeof payload.flags === 'number') {
    msg.flags = ((msg.flags ?? 0) & ~SETTABLE_FLAGS) | (payload.flags & SETTABLE_FLAGS);
  }
  // `attachments` lists the existing ones to keep (by id); new uploads are added.
  if (Array.isArray(payload.attachments)) {
    const keep = new Set(payload.attachments.map((a) => String((a as { id?: unknown }).id)));
    stored.files = stored.files.filter((f) => keep.has(f.id));
  }
  const channel = ctx.world.channels.get(msg.channel_id);
  if (channel !== undefined) {
    stored.files.push(...uploadFiles(ctx, channel, files, payload.attachments));
  }
  msg.flags = (msg.flags ?? 0) & ~LOADING;
  if (payload.allowed_mentions !== undefined) {
    stored.allowedMentions = payload.allowed_mentions as APIAllowedMentions;
  }
  const replyTo =
    stored.replyToId === undefined
      ? undefined
      : ctx.world.message(msg.channel_id, stored.replyToId);
  applyMentions(ctx, stored, stored.allowedMentions, replyTo);
  msg.edited_timestamp = new Date().toISOString();
  if (msg.content === '' && msg.embeds.length === 0 && stored.files.length === 0) {
    if ((msg.components ?? []).length === 0) return Errors.emptyMessage();
  }
  return undefined;
}

function uploadFiles(
  ctx: EmuCtx,
  channel: ChannelRec,
  files: UploadedFile[],
  attachmentsMeta: unknown,
): CdnFile[] {
  const meta = Array.isArray(attachmentsMeta) ? (attachmentsMeta as Record<string, unknown>[]) : [];
  return files.map((f, i) => {
    // `files[n]` pairs with the `attachments` entry whose id is n.
    const index = /^files\[(\d+)\]$/.exec(f.field)?.[1] ?? String(i);
    const m = meta.find((a) => String(a.id) === index);
    const input: {
      filename: string;
      bytes: Uint8Array;
      contentType: string;
      description?: string;
    } = {
      filename: typeof m?.filename === 'string' ? m.filename : f.filename,
      bytes: f.bytes,
      contentType: f.contentType,
    };
    if (typeof m?.description === 'string') input.description = m.description;
    return ctx.cdn.add(input, 'attachments', channel.id);
  });
}

function applyMentions(
  ctx: EmuCtx,
  stored: StoredMessage,
  allowed: APIAllowedMentions | undefined,
  replyTo: StoredMessage | undefined,
): void {
  const msg = stored.msg;
  const parse = allowed?.parse ?? ['users', 'roles', 'everyone'];
  const userOk = (id: string) =>
    allowed === undefined || parse.includes('users' as never) || (allowed.users ?? []).includes(id);
  const roleOk = (id: string) =>
    allowed === undefined || parse.includes('roles' as never) || (allowed.roles ?? []).includes(id);
  const users = new Map<string, APIUser>();
  for (const [, id] of msg.content.matchAll(/<@!?(\d{17,20})>/g)) {
    if (id !== undefined && ctx.world.users.has(id) && userOk(id)) {
      users.set(id, ctx.render.user(ctx.world.user(id)));
    }
  }
  // A reply pings its author unless allowed_mentions says replied_user: false (the default once
  // allowed_mentions is given at all).
  const pingReply = allowed === undefined ? true : allowed.replied_user === true;
  if (replyTo !== undefined && pingReply && replyTo.msg.author.id !== msg.author.id) {
    users.set(replyTo.msg.author.id, replyTo.msg.author);
  }
  msg.mentions = [...users.values()];
  const guild = stored.guildId === undefined ? undefined : ctx.world.guilds.get(stored.guildId);
  msg.mention_roles = [...msg.content.matchAll(/<@&(\d{17,20})>/g)]
    .map((m) => m[1] ?? '')
    .filter((id) => guild?.roles.some((r) => r.id === id) === true && roleOk(id));
  const canEveryone =
    guild !== undefined &&
    (ctx.render.permissions(guild, msg.author.id) & Perm.MentionEveryone) !== 0n;
  msg.mention_everyone =
    canEveryone && parse.includes('everyone' as never) && /@(everyone|here)\b/.test(msg.content);
}
