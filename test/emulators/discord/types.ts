// Public shapes of the Discord emulator. Wire objects reuse discord-api-types (re-exported by
// discord.js) so the compiler checks them against the documented API.
import type { APIAllowedMentions, APIMessage } from 'discord.js';

export interface DiscordChannelSeed {
  id: string;
  name: string;
  /** Channel type; 0 (GUILD_TEXT) by default. */
  type?: number;
}

export interface DiscordGuildSeed {
  id: string;
  name: string;
  channels: DiscordChannelSeed[];
  /** false: the server did not add the bot; its people can only use their own user installs. */
  botMember?: boolean;
}

/**
 * How the app is installed for an interaction: to the server (`guild`) or to the person's account
 * (`user`). Default: `guild` where the bot is present, `user` where it is not (a server that did
 * not add it, a group DM).
 */
export type InstallType = 'guild' | 'user';

export interface DiscordEmulatorOptions {
  botToken?: string;
  applicationId?: string;
  botUserId?: string;
  /** Default: two guilds, each with two text channels. */
  guilds?: DiscordGuildSeed[];
  /** Privileged intents enabled in the developer portal; IDENTIFY asking for others gets 4014. */
  privilegedIntents?: { messageContent?: boolean; guildMembers?: boolean; presences?: boolean };
  /** HELLO's heartbeat_interval (Discord: ~41 s). Default 2500 ms. */
  heartbeatIntervalMs?: number;
  /** How long a disconnected gateway session may be resumed (default two minutes). */
  resumeWindowMs?: number;
  /** Events kept per gateway session for a RESUME's replay (default 5000). */
  replayLimit?: number;
  /** How long an interaction may go unanswered (Discord: 3 s). */
  interactionAckWindowMs?: number;
  /** Lifetime of signed CDN URLs (Discord: 24 h). */
  cdnTtlMs?: number;
  /** Per-bucket REST limit reported in X-RateLimit-* and enforced. Default 50 per 1000 ms. */
  rateLimit?: { limit: number; windowMs: number };
}

export interface DiscordUser {
  id: string;
  username: string;
  bot: boolean;
}

/** A message as recorded: the wire object plus what the emulator saw when it was posted. */
export type DiscordMessage = APIMessage & {
  guild_id?: string;
  /** `allowed_mentions` exactly as the poster sent it (absent when not sent). */
  allowed_mentions?: APIAllowedMentions;
};

export interface UploadedFileInfo {
  field: string;
  filename: string;
  size: number;
  contentType: string;
}

export interface ApiCall {
  method: string;
  /** Path after the version, e.g. `/channels/123/messages`. */
  route: string;
  query: string;
  /** JSON body, or payload_json of a multipart body. */
  body: unknown;
  files?: UploadedFileInfo[];
  at: number;
  status: number;
  /** Discord's error code when the answer was an error object. */
  code?: number;
}

export interface ThreadRecord {
  id: string;
  parentId: string;
  guildId: string;
  name: string;
  ownerId: string;
  type: number;
  starterMessageId?: string;
  createdAt: number;
}

export interface InteractionRecord {
  id: string;
  token: string;
  type: number;
  /** Command name or component custom_id. */
  name: string;
  channelId: string;
  guildId?: string;
  userId: string;
  createdAt: number;
  acknowledgedAt?: number;
  responseType?: number;
  original?: DiscordMessage;
  followups: DiscordMessage[];
  ephemeral: boolean;
  /** The modal a type 9 (MODAL) callback showed: custom_id, title, components. */
  modal?: Record<string, unknown>;
  /** The choices an autocomplete's type 8 callback offered (none: an empty list). */
  choices?: unknown[];
  /** Interaction data as sent to the bot (command options, custom_id, modal components). */
  data?: Record<string, unknown>;
  /** `authorizing_integration_owners` as sent: "0" a server install, "1" a user install. */
  owners: Record<string, string>;
  /** The interaction context: 0 a server, 1 the bot's DM, 2 a group DM or a DM between people. */
  context: number;
}

export interface Fault {
  status: 429 | 500 | 502 | 503 | 400 | 403 | 404;
  retryAfterSec?: number;
  global?: boolean;
  /** Discord error code for 4xx faults (e.g. 50013 Missing Permissions). */
  code?: number;
  message?: string;
  /** How many matching calls fail. Default 1. */
  times?: number;
}

export interface AttachmentInput {
  filename: string;
  bytes: Uint8Array;
  contentType?: string;
  description?: string;
}

export interface UserMessageInput {
  guildId?: string;
  channelId: string;
  userId: string;
  content: string;
  mentionsBot?: boolean;
  attachments?: AttachmentInput[];
  /** Makes it a reply (type 19) to this message of the same channel. */
  replyTo?: string;
  /**
   * Makes it a forward of that message (any channel): empty content, message_reference type 1
   * (FORWARD), the original in message_snapshots, flag HAS_SNAPSHOT.
   */
  forwardOf?: { channelId: string; messageId: string };
}

/** What a modal submission fills in, by the text input's (or select's) custom_id. */
export interface ModalSubmitInput {
  /** The interaction whose callback (type 9 MODAL) opened the modal. */
  interactionId: string;
  values: Record<string, string | string[]>;
  /** The invoking member's permission bitfield. Default: the opener's. */
  memberPermissions?: string;
}

/** A channel permission overwrite as the API carries it. */
export interface PermissionOverwrite {
  id: string;
  /** 0 role, 1 member. */
  type: 0 | 1;
  allow: string;
  deny: string;
}

export interface CommandOptionInput {
  name: string;
  type: number;
  /** For attachment options (type 11): a filename from `attachments`, or omitted for the next one. */
  value?: unknown;
  options?: CommandOptionInput[];
}

export interface SlashCommandInput {
  guildId?: string;
  channelId: string;
  userId: string;
  name: string;
  options?: CommandOptionInput[];
  attachments?: AttachmentInput[];
  /** The invoking member's permission bitfield (decimal string). Default: @everyone's. */
  memberPermissions?: string;
  install?: InstallType;
}

export interface ComponentInput {
  channelId: string;
  messageId: string;
  userId: string;
  customId: string;
  /** 2 button (default), 3 string select, … */
  componentType?: number;
  values?: string[];
  /** The member's permissions as Discord computes them (default: from roles and overwrites). */
  memberPermissions?: string;
}

/** A person uses a message context-menu command (type 3) on a message. */
export interface MessageCommandInput {
  channelId: string;
  messageId: string;
  userId: string;
  name: string;
  memberPermissions?: string;
  install?: InstallType;
}

export interface UserThreadInput {
  channelId: string;
  userId: string;
  name: string;
  /** Start the thread from this message of the channel. */
  messageId?: string;
}

export interface GatewayStats {
  identified: number;
  resumed: number;
  /** INVALID_SESSION payloads sent. */
  invalidated: number;
  /** Sockets currently open and authenticated. */
  connected: number;
}

export interface DropOptions {
  /** false: the session is invalidated, so the RESUME gets INVALID_SESSION and the bot re-identifies. */
  resumable?: boolean;
  /** Close code; 1006 cuts the TCP connection without a close frame. Default 4000. */
  code?: number;
}

export interface InteractionHandle {
  id: string;
  token: string;
}

export interface GuildInfo {
  id: string;
  name: string;
  ownerId: string;
  botMember: boolean;
  channels: { id: string; name: string; type: number }[];
}

export interface DiscordEmulator {
  /** REST base without the version (discord.js `rest.api`), e.g. http://127.0.0.1:PORT/api. */
  apiUrl: string;
  /** What GET /gateway/bot answers, e.g. ws://127.0.0.1:PORT. */
  gatewayUrl: string;
  botToken: string;
  applicationId: string;
  botUserId: string;
  /** Seeded guilds and their channels. */
  guilds: GuildInfo[];
  /** Seeded people: the guild owner and a second member. */
  users: DiscordUser[];
  /** Every REST call, in arrival order. */
  calls: ApiCall[];
  /** Live messages of a channel, thread or DM, oldest first (ephemeral ones included). */
  messages(channelId: string): DiscordMessage[];
  /** Every message ever stored, deleted ones included. */
  allMessages(): (DiscordMessage & { deleted: boolean })[];
  threads(): ThreadRecord[];
  interactions(): InteractionRecord[];
  /** Commands as registered: 'global' or a guild id. */
  registeredCommands(scope: 'global' | string): unknown[];
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  /** A fresh snowflake (for ids of users, channels … the test invents). */
  snowflake(): string;
  /** The DM channel between the bot and this user (created on first use). */
  dmChannelId(userId: string): string;
  /** Adds a server (by default one the bot is not in: `botMember: false`). */
  addGuild(seed: Omit<DiscordGuildSeed, 'id'> & { id?: string }): GuildInfo;
  /** A group DM among these people; the bot is not in it. Returns its channel id. */
  groupDm(userIds: string[]): string;
  /** The server adds the bot (a server install): it becomes a member and gets GUILD_CREATE. */
  installInGuild(guildId: string): void;
  userMessage(m: UserMessageInput): Promise<DiscordMessage>;
  userThread(t: UserThreadInput): Promise<ThreadRecord>;
  slashCommand(c: SlashCommandInput): Promise<InteractionHandle>;
  /** A message context-menu command used on a message (APPLICATION_COMMAND, data.type 3). */
  messageCommand(c: MessageCommandInput): Promise<InteractionHandle>;
  componentInteraction(c: ComponentInput): Promise<InteractionHandle>;
  /** A recorded interaction's type and data, in this emulator's envelope (see replay.ts). */
  replayInteraction(r: {
    type: number;
    data: Record<string, unknown>;
    channelId: string;
    userId: string;
    messageId?: string;
    memberPermissions?: string;
  }): Promise<InteractionHandle>;
  /**
   * A recorded gateway dispatch sent as recorded (see recorded-frames.ts), its ids already this
   * world's; an INTERACTION_CREATE gets a fresh id and token, returned.
   */
  replayFrame(frame: { t: string; d: Record<string, unknown> }): InteractionHandle | undefined;
  /** A person submits the modal an interaction's callback showed: a MODAL_SUBMIT (type 5). */
  modalSubmit(m: ModalSubmitInput): Promise<InteractionHandle>;
  /**
   * A person edits their message: content replaced, edited_timestamp set, MESSAGE_UPDATE with the
   * full message (guild_id, member) dispatched.
   */
  editUserMessage(channelId: string, messageId: string, content: string): Promise<DiscordMessage>;
  /** A person deletes their message: MESSAGE_DELETE {id, channel_id, guild_id}. */
  deleteUserMessage(channelId: string, messageId: string): Promise<void>;
  /** Replaces a guild channel's permission_overwrites and dispatches CHANNEL_UPDATE. */
  setPermissionOverwrites(channelId: string, overwrites: PermissionOverwrite[]): void;
  /** A role in the guild with these permission bits; returns its id. */
  addRole(guildId: string, name: string, permissions: bigint): string;
  /** Makes the user a member of the guild holding exactly `roleIds` (besides @everyone). */
  addMember(guildId: string, userId: string, roleIds?: readonly string[]): void;
  /**
   * Gives a member exactly `roleIds` and dispatches GUILD_MEMBER_UPDATE (to sessions with the
   * Server Members intent), as Discord does when someone's roles change.
   */
  setMemberRoles(guildId: string, userId: string, roleIds: readonly string[]): void;
  /**
   * Dispatches a stored message's MESSAGE_CREATE again, under a new sequence number: the repeat a
   * bot meets when events are replayed to it (a RESUME from an older sequence, a second session
   * of the same shard). discord.js itself drops the repeat of a message it still caches.
   */
  redispatchMessageCreate(channelId: string, messageId: string): void;
  dropGatewayConnection(opts?: DropOptions): void;
  gatewaySessions(): GatewayStats;
  /** Ends every gateway session without a connection, as if its resume window had passed. */
  expireGatewaySessions(): number;
  /** The next call(s) whose `METHOD /path` (path after /api/v10) matches get the fault. */
  failNext(route: RegExp, fault: Fault): void;
  /** A freshly signed CDN URL of an attachment (by id). */
  attachmentUrl(attachmentId: string): string;
  /** Lifetime of CDN URLs signed from now on. */
  setCdnTtlMs(ms: number): void;
  /** Moves the CDN's clock (for expiry) forward by ms. */
  advanceCdnClock(ms: number): void;
  cdnDownloads(): { path: string; status: number; at: number }[];
  close(): Promise<void>;
}
