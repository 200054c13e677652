// Discord roles as knowledge groups: a guild's members and their roles read over REST (at start,
// when the bot joins a guild, and on a schedule), and kept current from the gateway's
// GUILD_MEMBER_UPDATE (a member's complete role list), GUILD_MEMBER_REMOVE and GUILD_ROLE_DELETE
// (needs the Server Members intent). @everyone (the role whose id is the guild's) is left out:
// every member of a guild is in its `everyone` group already.
import { type APIGuildMember, type Client, Events, Routes } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';

const MEMBERS_PAGE = 1000;

export class DiscordGroupSync {
  readonly #client: Client;
  readonly #sink: PlatformGroupSink;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;

  /** Kept current from the client's gateway events from now on. */
  constructor(client: Client, sink: PlatformGroupSink, log: Logger) {
    this.#client = client;
    this.#sink = sink;
    this.#log = log;
    client.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => {
      if (packet.t && this.onDispatch(packet.t, packet.d))
        log.debug({ platform: 'discord', event: packet.t }, 'discord roles updated');
    });
    client.on(Events.GuildCreate, (guild) => void this.syncLogged(guild.id));
  }

  /** Once connected: every guild read now and again every `intervalMinutes`. */
  start(intervalMinutes: number): void {
    const all = () => {
      for (const id of this.#client.guilds.cache.keys()) void this.syncLogged(id);
    };
    all();
    this.#timer = setInterval(all, intervalMinutes * 60_000);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One guild read again; a failure is logged and the next run retries. */
  async syncLogged(guildId: string): Promise<void> {
    const started = performance.now();
    try {
      const members = await this.syncGuild(guildId);
      this.#log.info(
        { guild: guildId, members, ms: Math.round(performance.now() - started) },
        'discord roles synced',
      );
    } catch (err) {
      this.#log.warn(
        { guild: guildId, err },
        'discord role sync failed (listing members needs the Server Members intent); knowledge access keeps the last known roles until the next sync',
      );
    }
  }

  /** Every member's roles in the guild; returns how many members were read. */
  async syncGuild(guildId: string): Promise<number> {
    const groups = new Map<string, string[]>();
    let after = '0';
    let members = 0;
    for (;;) {
      const page = (await this.#client.rest.get(Routes.guildMembers(guildId), {
        query: new URLSearchParams({ limit: String(MEMBERS_PAGE), after }),
      })) as APIGuildMember[];
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
      const last = page.at(-1)?.user?.id;
      if (page.length < MEMBERS_PAGE || !last) break;
      after = last;
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
