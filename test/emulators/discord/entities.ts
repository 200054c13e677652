// Renders the world's records as Discord wire objects (users, members, roles, channels, guilds,
// messages). Typed with discord-api-types so a missing required field fails the typecheck.
import type {
  APIChannel,
  APIGuildMember,
  APIMessage,
  APIRole,
  APIUser,
  GatewayGuildCreateDispatchData,
  GuildMemberFlags,
  RoleFlags,
  UserFlags,
} from 'discord.js';
import type { Cdn } from './cdn.ts';
import { ALL_PERMS } from './permissions.ts';
import { snowflakeTime } from './snowflake.ts';
import {
  type ChannelRec,
  type GuildRec,
  isThread,
  type RoleRec,
  type StoredMessage,
  type UserRec,
  type World,
} from './store.ts';
import type { DiscordMessage } from './types.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export class Renderer {
  readonly world: World;
  readonly cdn: Cdn;

  constructor(world: World, cdn: Cdn) {
    this.world = world;
    this.cdn = cdn;
  }

  user(u: UserRec): APIUser {
    const out: APIUser = {
      id: u.id,
      username: u.username,
      discriminator: '0',
      global_name: u.globalName,
      avatar: null,
      public_flags: 0 as UserFlags,
      flags: 0 as UserFlags,
      avatar_decoration_data: null,
      collectibles: null,
      primary_guild: null,
    };
    if (u.bot) out.bot = true;
    return out;
  }

  role(r: RoleRec): APIRole {
    const out: APIRole = {
      id: r.id,
      name: r.name,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      position: r.position,
      permissions: r.permissions.toString(),
      managed: r.managed,
      mentionable: false,
      flags: 0 as RoleFlags,
    };
    if (r.botId !== undefined) out.tags = { bot_id: r.botId };
    return out;
  }

  memberRoles(g: GuildRec, userId: string): RoleRec[] {
    const given = g.memberRoleIds?.get(userId) ?? [];
    return g.roles.filter((r) => r.botId === userId || given.includes(r.id));
  }

  /** Guild-level permissions of a member: @everyone plus their roles (owners get all). */
  permissions(g: GuildRec, userId: string): bigint {
    if (userId === g.ownerId) return ALL_PERMS;
    let p = g.roles[0]?.permissions ?? 0n;
    for (const r of this.memberRoles(g, userId)) p |= r.permissions;
    return p;
  }

  /** Without `user`, as MESSAGE_CREATE's `member` carries it. */
  memberNoUser(g: GuildRec, userId: string): Omit<APIGuildMember, 'user'> {
    return {
      roles: this.memberRoles(g, userId).map((r) => r.id),
      nick: null,
      avatar: null,
      banner: null,
      premium_since: null,
      joined_at: iso(userId === this.world.botUser.id ? g.joinedAt : g.joinedAt - 86_400_000),
      deaf: false,
      mute: false,
      flags: 0 as GuildMemberFlags,
      pending: false,
      communication_disabled_until: null,
    };
  }

  member(g: GuildRec, userId: string): APIGuildMember {
    return { ...this.memberNoUser(g, userId), user: this.user(this.world.user(userId)) };
  }

  channel(c: ChannelRec): APIChannel {
    if (c.type === 1) {
      const recipient = this.world.user(c.recipientId ?? '');
      return {
        id: c.id,
        type: 1,
        last_message_id: c.lastMessageId,
        flags: 0,
        recipients: [this.user(recipient)],
      } as unknown as APIChannel;
    }
    if (c.type === 3) {
      return {
        id: c.id,
        type: 3,
        name: c.name === '' ? null : c.name,
        icon: null,
        owner_id: c.ownerId ?? null,
        last_message_id: c.lastMessageId,
        flags: 0,
        recipients: (c.recipientIds ?? []).map((id) => this.user(this.world.user(id))),
      } as unknown as APIChannel;
    }
    const base = {
      id: c.id,
      type: c.type,
      guild_id: c.guildId,
      name: c.name,
      last_message_id: c.lastMessageId,
      rate_limit_per_user: 0,
      flags: 0,
    };
    if (isThread(c.type)) {
      return {
        ...base,
        parent_id: c.parentId ?? null,
        owner_id: c.ownerId,
        message_count: c.messageCount,
        member_count: c.botJoined ? 2 : 1,
        total_message_sent: c.totalSent,
        applied_tags: [],
        thread_metadata: {
          archived: false,
          auto_archive_duration: c.autoArchiveMinutes,
          archive_timestamp: iso(c.createdAt),
          locked: false,
          create_timestamp: iso(c.createdAt),
          ...(c.type === 12 ? { invitable: true } : {}),
        },
        ...(c.botJoined
          ? {
              member: {
                id: c.id,
                user_id: this.world.botUser.id,
                join_timestamp: iso(c.createdAt),
                flags: 1,
              },
            }
          : {}),
      } as APIChannel;
    }
    return {
      ...base,
      position: c.position,
      permission_overwrites: structuredClone(c.permissionOverwrites ?? []),
      parent_id: null,
      topic: null,
      nsfw: false,
      default_thread_rate_limit_per_user: 0,
    } as APIChannel;
  }

  guildCreate(g: GuildRec): GatewayGuildCreateDispatchData {
    const members = [...new Set(g.memberIds)];
    return {
      id: g.id,
      name: g.name,
      icon: null,
      icon_hash: null,
      splash: null,
      discovery_splash: null,
      owner_id: g.ownerId,
      region: 'deprecated',
      afk_channel_id: null,
      afk_timeout: 300,
      widget_enabled: false,
      widget_channel_id: null,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: g.roles.map((r) => this.role(r)),
      emojis: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: this.world.guildChannels(g.id)[0]?.id ?? null,
      system_channel_flags: 0,
      rules_channel_id: null,
      max_presences: null,
      max_members: 500_000,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: 'en-US' as GatewayGuildCreateDispatchData['preferred_locale'],
      public_updates_channel_id: null,
      max_video_channel_users: 25,
      max_stage_video_channel_users: 50,
      nsfw_level: 0,
      stickers: [],
      premium_progress_bar_enabled: false,
      hub_type: null,
      safety_alerts_channel_id: null,
      incidents_data: null,
      joined_at: iso(g.joinedAt),
      large: false,
      unavailable: false,
      member_count: members.length,
      voice_states: [],
      // Without the GUILD_MEMBERS intent a guild carries the bot's own member only.
      members: [this.member(g, this.world.botUser.id)],
      channels: this.world.guildChannels(g.id).map((c) => this.channel(c)),
      threads: this.world.activeThreads(g.id).map((c) => this.channel(c)),
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    } as unknown as GatewayGuildCreateDispatchData;
  }

  /** The message as the API returns it: attachment URLs signed now. */
  message(m: StoredMessage, depth = 0): APIMessage {
    const out: APIMessage = { ...m.msg, attachments: m.files.map((f) => this.cdn.describe(f)) };
    const thread = this.world.channels.get(m.msg.id);
    if (thread !== undefined && thread.starterMessageId === m.msg.id) {
      out.thread = this.channel(thread);
    }
    if (m.replyToId !== undefined && depth === 0) {
      const ref = this.world.message(m.msg.channel_id, m.replyToId);
      out.referenced_message = ref === undefined ? null : this.message(ref, 1);
    }
    return out;
  }

  /** MESSAGE_CREATE/UPDATE data: the message plus guild_id, member and channel_type. */
  messageEvent(m: StoredMessage): Record<string, unknown> {
    const ch = this.world.channels.get(m.msg.channel_id);
    const data: Record<string, unknown> = { ...this.message(m) };
    if (ch !== undefined) data.channel_type = ch.type;
    const g = m.guildId === undefined ? undefined : this.world.guilds.get(m.guildId);
    if (g !== undefined) {
      data.guild_id = g.id;
      if (m.msg.webhook_id === undefined) data.member = this.memberNoUser(g, m.msg.author.id);
      data.mentions = m.msg.mentions.map((u) => ({ ...u, member: this.memberNoUser(g, u.id) }));
    }
    return data;
  }

  /** The recorded view handed to tests. */
  recorded(m: StoredMessage): DiscordMessage {
    const out: DiscordMessage = { ...this.message(m) };
    if (m.guildId !== undefined) out.guild_id = m.guildId;
    if (m.allowedMentions !== undefined) out.allowed_mentions = m.allowedMentions;
    return out;
  }

  createdAt(id: string): string {
    return iso(snowflakeTime(id));
  }
}
