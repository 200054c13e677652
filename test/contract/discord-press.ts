// A press on a button as the contract drivers make it: through the emulator's click when the
// message shows that button, else as the payload a stale client or a forger sends (the raw path;
// the emulator clicks only what a message shows, as Discord does).
import type { DiscordEmulator, InteractionHandle } from '../emulators/discord/index.ts';

type Row = { components?: { custom_id?: string }[] };

export function pressOrReplay(
  d: DiscordEmulator,
  where: { channelId: string; messageId: string; userId: string },
  customId: string,
  memberPermissions?: string,
): Promise<InteractionHandle> {
  const perms = memberPermissions === undefined ? {} : { memberPermissions };
  const m = d.messages(where.channelId).find((x) => x.id === where.messageId);
  const shown = ((m?.components ?? []) as Row[])
    .flatMap((r) => r.components ?? [])
    .some((c) => c.custom_id === customId);
  if (shown) return d.componentInteraction({ ...where, customId, ...perms });
  return d.replayInteraction({
    ...where,
    type: 3,
    data: { custom_id: customId, component_type: 2 },
    ...perms,
  });
}
