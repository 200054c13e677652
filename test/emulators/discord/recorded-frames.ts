// A recorded gateway dispatch (test/fixtures/discord-payloads/gateway) sent to the bot as it was
// recorded: its `d` goes out unchanged, not re-rendered by this emulator, so a field Discord sends
// and the emulator would not (or the other way round) reaches the bot as Discord would send it.
// What Discord itself keeps of the event is kept here too: a message stays readable and repliable
// over REST, an interaction gets a token its callback can use within the 3 s window. The caller
// has already put its ids on this world's guild, channel and people (`mapRecordedIds`).
import type { APIMessage } from 'discord.js';
import type { EmuCtx } from './context.ts';
import { Intents } from './gateway.ts';
import { snowflake } from './snowflake.ts';
import type { InteractionHandle } from './types.ts';

export interface RecordedFrame {
  t: string;
  d: Record<string, unknown>;
}

/** Sends the frame; an INTERACTION_CREATE returns the token it was given. */
export function replayFrame(ctx: EmuCtx, frame: RecordedFrame): InteractionHandle | undefined {
  const d = structuredClone(frame.d);
  switch (frame.t) {
    case 'INTERACTION_CREATE':
      return replayInteractionCreate(ctx, d);
    case 'MESSAGE_CREATE':
      keepMessage(ctx, d);
      break;
    case 'MESSAGE_UPDATE':
      keepEdit(ctx, d);
      break;
    case 'MESSAGE_DELETE': {
      const m = ctx.world.message(String(d.channel_id), String(d.id));
      if (m !== undefined) m.deleted = true;
      break;
    }
  }
  const intent = intentOf(frame.t, d);
  ctx.gateway.dispatch(frame.t, (intents) =>
    intent === 0 || (intents & intent) !== 0 ? d : undefined,
  );
  return undefined;
}

// The intent a session needs to get the event; 0: every session gets it (interactions, READY-like
// events and ones this emulator does not know).
function intentOf(t: string, d: Record<string, unknown>): number {
  if (t.startsWith('MESSAGE_') && !t.startsWith('MESSAGE_REACTION')) {
    return d.guild_id === undefined ? Intents.DirectMessages : Intents.GuildMessages;
  }
  if (t.startsWith('GUILD_') || t.startsWith('THREAD_') || t.startsWith('CHANNEL_')) {
    return Intents.Guilds;
  }
  return 0;
}

// A message Discord stored: the bot may reply to it, start a thread from it, read it back. Its
// attachments are this CDN's files, as Discord's URLs are its own CDN's.
function keepMessage(ctx: EmuCtx, d: Record<string, unknown>): void {
  const channelId = String(d.channel_id);
  const attachments = Array.isArray(d.attachments) ? d.attachments : [];
  const files = attachments.map((a: Record<string, unknown>) =>
    ctx.cdn.add(
      {
        filename: String(a.filename),
        bytes: Buffer.alloc(Number(a.size ?? 0), 'recorded attachment\n'),
        ...(typeof a.content_type === 'string' ? { contentType: a.content_type } : {}),
      },
      'attachments',
      channelId,
    ),
  );
  d.attachments = files.map((f) => ctx.cdn.describe(f));
  const { guild_id: guildId, member: _member, ...msg } = d;
  ctx.world.addMessage({
    msg: { ...(msg as unknown as APIMessage), attachments: [] },
    ...(typeof guildId === 'string' ? { guildId } : {}),
    files,
    ephemeral: false,
    deleted: false,
  });
}

function keepEdit(ctx: EmuCtx, d: Record<string, unknown>): void {
  const m = ctx.world.message(String(d.channel_id), String(d.id));
  if (m === undefined) return;
  if (typeof d.content === 'string') m.msg.content = d.content;
  if (typeof d.edited_timestamp === 'string') m.msg.edited_timestamp = d.edited_timestamp;
}

// Discord gives every interaction a fresh id and token; the rest goes out as recorded.
function replayInteractionCreate(ctx: EmuCtx, d: Record<string, unknown>): InteractionHandle {
  const id = snowflake();
  const token = Buffer.from(`interaction:${id}:recorded`).toString('base64url');
  d.id = id;
  d.token = token;
  const data = (d.data ?? {}) as Record<string, unknown>;
  const member = d.member as { user?: { id?: string } } | undefined;
  const user = (member?.user ?? d.user) as { id?: string } | undefined;
  const channel = d.channel as { id?: string } | undefined;
  const message = d.message as { id?: string } | undefined;
  ctx.interactions.set(id, {
    id,
    token,
    type: Number(d.type),
    name: String(data.custom_id ?? data.name ?? ''),
    channelId: String(d.channel_id ?? channel?.id ?? ''),
    ...(typeof d.guild_id === 'string' ? { guildId: d.guild_id } : {}),
    userId: String(user?.id ?? ''),
    createdAt: Date.now(),
    followupIds: [],
    ephemeral: false,
    data,
    owners: (d.authorizing_integration_owners ?? {}) as Record<string, string>,
    context: typeof d.context === 'number' ? d.context : 0,
    ...(message?.id !== undefined ? { messageId: message.id } : {}),
  });
  ctx.gateway.dispatch('INTERACTION_CREATE', () => d);
  return { id, token };
}
