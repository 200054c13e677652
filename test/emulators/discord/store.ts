// The emulated Discord world: users, guilds, channels (threads and DMs included) and messages.
// Records hold what the wire objects are built from; entities.ts renders them.
import type { APIAllowedMentions, APIMessage } from 'discord.js';
import type { CdnFile } from './cdn.ts';
import { snowflake } from './snowflake.ts';
import type { DiscordGuildSeed } from './types.ts';

export interface UserRec {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
}

export interface RoleRec {
  id: string;
  name: string;
  permissions: bigint;
  position: number;
  managed: boolean;
  botId?: string;
}

export interface GuildRec {
  id: string;
  name: string;
  ownerId: string;
  roles: RoleRec[];
  memberIds: string[];
  /** Roles given to members (addMember); the bot's managed role is found by `botId`. */
  memberRoleIds?: Map<string, string[]>;
  joinedAt: number;
  /** The bot is a member (the server installed the app); false: people use it as a user install. */
  botMember: boolean;
}

export interface ChannelRec {
  id: string;
  type: number;
  name: string;
  guildId?: string;
  parentId?: string;
  position: number;
  ownerId?: string;
  /** DM recipient (the human). */
  recipientId?: string;
  /** A group DM's people; the bot is never one of them. */
  recipientIds?: string[];
  lastMessageId: string | null;
  messageCount: number;
  totalSent: number;
  createdAt: number;
  /** Thread started from this message of the parent (the thread has the message's id). */
  starterMessageId?: string;
  autoArchiveMinutes: number;
  /** The bot is a member of the thread. */
  botJoined: boolean;
  permissionOverwrites?: { id: string; type: number; allow: string; deny: string }[];
}

export interface StoredMessage {
  msg: APIMessage;
  guildId?: string;
  files: CdnFile[];
  allowedMentions?: APIAllowedMentions;
  ephemeral: boolean;
  deleted: boolean;
  /** Id of the message replied to; rendered as referenced_message. */
  replyToId?: string;
  interactionId?: string;
}

export const ChannelTypes = {
  GuildText: 0,
  DM: 1,
  GroupDM: 3,
  GuildAnnouncement: 5,
  AnnouncementThread: 10,
  PublicThread: 11,
  PrivateThread: 12,
} as const;

export function isThread(type: number): boolean {
  return type === 10 || type === 11 || type === 12;
}

export class World {
  readonly users = new Map<string, UserRec>();
  readonly guilds = new Map<string, GuildRec>();
  readonly channels = new Map<string, ChannelRec>();
  readonly #messages = new Map<string, StoredMessage[]>();
  readonly #dmByUser = new Map<string, string>();

  readonly botUser: UserRec;

  constructor(botUser: UserRec) {
    this.botUser = botUser;
    this.users.set(botUser.id, botUser);
  }

  /** The user with this id, created on first sight like a member who just joined. */
  user(id: string): UserRec {
    let u = this.users.get(id);
    if (u === undefined) {
      u = { id, username: `user${id.slice(-6)}`, globalName: null, bot: false };
      this.users.set(id, u);
    }
    return u;
  }

  seedGuild(seed: DiscordGuildSeed, ownerId: string, botRolePerms: bigint, everyonePerms: bigint) {
    const botMember = seed.botMember !== false;
    const g: GuildRec = {
      id: seed.id,
      name: seed.name,
      ownerId,
      // The @everyone role shares the guild's id; the bot gets a managed role on invite.
      roles: [
        { id: seed.id, name: '@everyone', permissions: everyonePerms, position: 0, managed: false },
        ...(botMember
          ? [
              {
                id: snowflake(),
                name: this.botUser.username,
                permissions: botRolePerms,
                position: 1,
                managed: true,
                botId: this.botUser.id,
              },
            ]
          : []),
      ],
      memberIds: botMember ? [ownerId, this.botUser.id] : [ownerId],
      joinedAt: Date.now(),
      botMember,
    };
    this.guilds.set(g.id, g);
    for (const [position, c] of seed.channels.entries()) {
      this.addChannel({ id: c.id, type: c.type ?? 0, name: c.name, guildId: g.id, position });
    }
    return g;
  }

  addChannel(c: Pick<ChannelRec, 'id' | 'type' | 'name'> & Partial<ChannelRec>): ChannelRec {
    const rec: ChannelRec = {
      position: 0,
      lastMessageId: null,
      messageCount: 0,
      totalSent: 0,
      createdAt: Date.now(),
      autoArchiveMinutes: 4320,
      botJoined: false,
      ...c,
    };
    this.channels.set(rec.id, rec);
    return rec;
  }

  /** The DM channel between the bot and `userId`, opened on first use. */
  dmChannel(userId: string, id?: string): ChannelRec {
    const known = this.#dmByUser.get(userId);
    if (known !== undefined && (id === undefined || id === known)) {
      const rec = this.channels.get(known);
      if (rec !== undefined) return rec;
    }
    this.user(userId);
    const rec = this.addChannel({ id: id ?? snowflake(), type: 1, name: '', recipientId: userId });
    this.#dmByUser.set(userId, rec.id);
    return rec;
  }

  /** The server adds the bot: a member with its managed role, as on invite. */
  joinGuild(g: GuildRec, botRolePerms: bigint): void {
    if (g.botMember) return;
    g.botMember = true;
    g.memberIds.push(this.botUser.id);
    g.roles.push({
      id: snowflake(),
      name: this.botUser.username,
      permissions: botRolePerms,
      position: g.roles.length,
      managed: true,
      botId: this.botUser.id,
    });
    g.joinedAt = Date.now();
  }

  /** A group DM among people (the bot is not in it: only a user install can be used there). */
  groupDm(userIds: string[]): ChannelRec {
    for (const id of userIds) this.user(id);
    return this.addChannel({
      id: snowflake(),
      type: 3,
      name: '',
      recipientIds: [...userIds],
      ...(userIds[0] !== undefined ? { ownerId: userIds[0] } : {}),
    });
  }

  /**
   * Whether the bot can see a channel at all: not in a server that did not add it, nor in a group
   * DM (Discord answers 403 Missing Access and sends it no events from there).
   */
  botCanAccess(c: ChannelRec): boolean {
    if (c.type === 3) return false;
    const g = c.guildId === undefined ? undefined : this.guilds.get(c.guildId);
    return g === undefined || g.botMember;
  }

  threads(): ChannelRec[] {
    return [...this.channels.values()].filter((c) => isThread(c.type));
  }

  guildChannels(guildId: string): ChannelRec[] {
    return [...this.channels.values()].filter((c) => c.guildId === guildId && !isThread(c.type));
  }

  activeThreads(guildId: string): ChannelRec[] {
    return this.threads().filter((c) => c.guildId === guildId);
  }

  addMessage(m: StoredMessage): StoredMessage {
    const list = this.#messages.get(m.msg.channel_id) ?? [];
    list.push(m);
    this.#messages.set(m.msg.channel_id, list);
    const ch = this.channels.get(m.msg.channel_id);
    if (ch !== undefined && !m.ephemeral) {
      ch.lastMessageId = m.msg.id;
      if (isThread(ch.type)) {
        ch.messageCount += 1;
        ch.totalSent += 1;
      }
    }
    return m;
  }

  /** The live message, or undefined when absent or deleted. */
  message(channelId: string, id: string): StoredMessage | undefined {
    return this.#messages.get(channelId)?.find((m) => m.msg.id === id && !m.deleted);
  }

  /** Live messages of a channel or thread, oldest first. */
  messages(channelId: string): StoredMessage[] {
    return (this.#messages.get(channelId) ?? []).filter((m) => !m.deleted);
  }

  allMessages(): StoredMessage[] {
    return [...this.#messages.values()].flat();
  }
}
