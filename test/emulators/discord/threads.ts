// Starting threads, by the bot (REST) or by a user: a thread started from a message shares the
// message's id; one started without a message is announced in the parent by a THREAD_CREATED
// (type 18) system message. Either way THREAD_CREATE goes to the bot.
import { type Answer, apiError, Errors, formError, ok } from './api-errors.ts';
import { type EmuCtx, emitMessageCreate, emitThreadCreate } from './context.ts';
import { buildMessage } from './message-factory.ts';
import { snowflake } from './snowflake.ts';
import type { ChannelRec } from './store.ts';

const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080];

export interface NewThread {
  name: string;
  type: number;
  ownerId: string;
  messageId?: string | undefined;
  autoArchiveMinutes?: number;
}

export function createThread(ctx: EmuCtx, parent: ChannelRec, t: NewThread): ChannelRec {
  const thread = ctx.world.addChannel({
    id: t.messageId ?? snowflake(),
    type: t.type,
    name: t.name,
    parentId: parent.id,
    ownerId: t.ownerId,
    autoArchiveMinutes: t.autoArchiveMinutes ?? 4320,
    // The creator is a member; for the bot that means THREAD_CREATE carries `member`.
    botJoined: t.ownerId === ctx.botId,
    ...(parent.guildId !== undefined ? { guildId: parent.guildId } : {}),
    ...(t.messageId !== undefined ? { starterMessageId: t.messageId } : {}),
  });
  emitThreadCreate(ctx, thread);
  if (t.messageId === undefined && t.type !== 12) {
    const notice = buildMessage(ctx, {
      channel: parent,
      authorId: t.ownerId,
      payload: { content: t.name },
      files: [],
      type: 18,
      extra: {
        message_reference: { type: 0, channel_id: thread.id, guild_id: parent.guildId ?? '' },
      },
    });
    if ('msg' in notice) {
      ctx.world.addMessage(notice);
      emitMessageCreate(ctx, notice);
    }
  }
  return thread;
}

/** POST /channels/:id/threads and /channels/:id/messages/:id/threads, validated like Discord. */
export function startThreadRoute(
  ctx: EmuCtx,
  parent: ChannelRec,
  b: Record<string, unknown>,
  messageId: string | undefined,
): Answer {
  if (parent.type !== 0 && parent.type !== 5) return Errors.wrongChannelType();
  const name = b.name;
  if (name === undefined || name === null) {
    return formError(['name'], 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  if (typeof name !== 'string' || [...name].length < 1 || [...name].length > 100) {
    return formError(['name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const archive = b.auto_archive_duration ?? 4320;
  if (typeof archive !== 'number' || !ARCHIVE_DURATIONS.includes(archive)) {
    const choices = `Value must be one of ${ARCHIVE_DURATIONS.join(', ')}.`;
    return formError(['auto_archive_duration'], 'BASE_TYPE_CHOICES', choices);
  }
  if (messageId !== undefined && ctx.world.channels.has(messageId)) {
    return apiError(400, 160004, 'A thread has already been created for this message');
  }
  // Without a message the type defaults to PRIVATE_THREAD (12), as the API documents.
  let type = typeof b.type === 'number' ? b.type : 12;
  if (messageId !== undefined) type = 11;
  if (parent.type === 5) type = 10;
  if (type !== 10 && type !== 11 && type !== 12) {
    return formError(['type'], 'BASE_TYPE_CHOICES', 'Value must be one of {10, 11, 12}.');
  }
  const thread = createThread(ctx, parent, {
    name,
    type,
    ownerId: ctx.botId,
    messageId,
    autoArchiveMinutes: archive,
  });
  return ok(ctx.render.channel(thread), 201);
}
