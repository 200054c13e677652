// The bot's own admins (`slack.admins`, `discord.admins` in the config) may everything a project's
// admins may, on any platform and whatever the platform says of them: change a channel's settings,
// export feedback, erase. Forgetting a thread someone else started stays the platform's to allow.
import type { Actor } from '../../model/interaction.ts';

export function withConfiguredAdmins(actor: Actor, admins: readonly string[] | undefined): Actor {
  if (!admins?.includes(actor.id)) return actor;
  return {
    ...actor,
    may: async (right, where) => right !== 'forgetThread' || actor.may(right, where),
  };
}
