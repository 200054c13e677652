// Discord roles as knowledge groups: a guild's members and their roles read over REST (at start,
// when the bot joins a guild, and on a schedule: src/core/group-sync-schedule.ts), and kept
// current from the gateway's GUILD_MEMBER_UPDATE (a member's complete role list),
// GUILD_MEMBER_REMOVE and GUILD_ROLE_DELETE (needs the Server Members intent). @everyone (the role whose id is the guild's) is left out:
// every member of a guild is in its `everyone` group already.
import { type Client, Events } from 'discord.js';
import { GroupSyncSchedule } from '../../src/core/group-sync-schedule.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import { guildMembers } from './discord-audience.ts';

export class DiscordGroupSync {
  readonly #client: Client;
  readonly #sink: PlatformGroupSink;
  /** Every guild the bot is in, read on the schedule. */
  readonly #schedule: GroupSyncSchedule;

  /** Kept current from the client's gateway events from now on. */
  constructor(client: Client, sink: PlatformGroupSink, log: Logger, intervalMinutes: number) {
    this.#client = client;
    this.#sink = sink;
    this.#schedule = new GroupSyncSchedule({
      sync: (guildId) => this.syncGuild(guildId),
      projects: () => client.guilds.cache.keys(),
      intervalMinutes,
      log,
      words: { project: 'guild', count: 'members', synced: 'discord roles synced' },
      failed: (err) => ({
        fields: { err },
        message:
          'discord role sync failed (listing members needs the Server Members intent); knowledge access keeps the last known roles until the next sync',
      }),
    });
    client.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => {
      if (packet.t && this.onDispatch(packet.t, packet.d))
        log.debug({ platform: 'discord', event: packet.t }, 'discord roles updated');
    });
    client.on(Events.GuildCreate, (guild) => void this.syncLogged(guild.id));
  }

  /** Once connected: every guild read now and again on the schedule. */
  start(): void {
    this.#schedule.start();
  }

  stop(): void {
    this.#schedule.stop();
  }

  /** One guild read again; a failure is logged and the next run retries. */
  syncLogged(guildId: string): Promise<void> {
    return this.#schedule.syncLogged(guildId);
  }

  /** Every member's roles in the guild; returns how many members were read. */
  async syncGuild(guildId: string): Promise<number> {
    const groups = new Map<string, string[]>();
    let members = 0;
    for await (const page of guildMembers(this.#client.rest, guildId))
      for (const m of page) {
        const userId = m.user?.id;
        if (!userId) continue;
        members++;
        for (const role of m.roles) {
          if (role === guildId) continue;
          const list = groups.get(role);
          if (list) list.push(userId);
          else groups.set(role, [userId]);
        }
      }
    this.#sink.replaceWorkspace('discord', guildId, groups);
    return members;
  }

  /** A raw gateway dispatch; true when it changed a membership. */
  onDispatch(type: string, data: unknown): boolean {
    const d = data as {
      guild_id?: string;
      user?: { id?: string };
      roles?: string[];
      role_id?: string;
    };
    if (!d?.guild_id) return false;
    const guild = d.guild_id;
    if (type === 'GUILD_MEMBER_UPDATE' && d.user?.id && Array.isArray(d.roles)) {
      const roles = d.roles.filter((r) => r !== guild);
      this.#sink.setMemberGroups('discord', guild, d.user.id, roles);
      return true;
    }
    if (type === 'GUILD_MEMBER_REMOVE' && d.user?.id) {
      this.#sink.setMemberGroups('discord', guild, d.user.id, []);
      return true;
    }
    if (type === 'GUILD_ROLE_DELETE' && d.role_id) {
      this.#sink.setGroupMembers('discord', guild, d.role_id, []);
      return true;
    }
    return false;
  }
}
