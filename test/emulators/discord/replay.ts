// A recorded interaction (test/fixtures/discord-payloads: its `type` and `data`, as Discord's own
// libraries' tests hold them) sent to the bot as Discord sends it: the envelope Discord adds
// around them (id, token, channel, member, permissions) is this emulator's, as a real one is the
// guild's it happens in.
import type { EmuCtx } from './context.ts';
import type { InteractionHandle } from './types.ts';
import { createInteraction, installationFor, resolveChannel } from './user-actions.ts';

export interface ReplayInteractionInput {
  /** 2 application command, 3 message component, 4 autocomplete, 5 modal submit. */
  type: number;
  data: Record<string, unknown>;
  channelId: string;
  userId: string;
  /** The message a component was on (a component always comes from one). */
  messageId?: string;
  /** The invoking member's permission bitfield. Default: @everyone's. */
  memberPermissions?: string;
}

export function replayInteraction(ctx: EmuCtx, r: ReplayInteractionInput): InteractionHandle {
  const channel = resolveChannel(ctx, r.channelId, r.userId);
  const message =
    r.messageId === undefined ? undefined : ctx.world.message(channel.id, r.messageId);
  const data = structuredClone(r.data);
  // A message command names its message and carries it resolved, as Discord sends it.
  if (r.type === 2 && data.type === 3 && message !== undefined) {
    data.target_id = message.msg.id;
    data.resolved = { messages: { [message.msg.id]: ctx.render.message(message) } };
  }
  return createInteraction(ctx, {
    type: r.type,
    name: String(r.data.custom_id ?? r.data.name ?? ''),
    channel,
    userId: r.userId,
    data,
    ...(message === undefined
      ? {}
      : { message: ctx.render.message(message), messageId: message.msg.id }),
    memberPermissions: r.memberPermissions,
    at: installationFor(ctx, channel),
  });
}
