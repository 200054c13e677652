// A local, protocol-faithful Discord for tests: REST under /api/v10, the Gateway over WebSocket
// on the same port, and the attachment CDN under /attachments/. The unmodified discord.js
// Client runs against it with `rest: { api: emu.apiUrl }`; the gateway URL comes from
// GET /gateway/bot like in production.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clip, waitFor } from '../slack/wait-for.ts';
import { Cdn } from './cdn.ts';
import { type EmuCtx, emitChannelUpdate, emitMessageCreate } from './context.ts';
import { Renderer } from './entities.ts';
import { Gateway, Intents } from './gateway.ts';
import { HttpApi } from './http-api.ts';
import { BOT_ROLE_PERMS, EVERYONE_PERMS } from './permissions.ts';
import { replayFrame } from './recorded-frames.ts';
import { replayInteraction } from './replay.ts';
import { appRoutes } from './routes-app.ts';
import { channelRoutes } from './routes-channels.ts';
import { interactionRoutes } from './routes-interactions.ts';
import { snowflake } from './snowflake.ts';
import { World } from './store.ts';
import type {
  ApiCall,
  DiscordEmulator,
  DiscordEmulatorOptions,
  DiscordGuildSeed,
  GuildInfo,
  InteractionRecord,
  ThreadRecord,
} from './types.ts';
import {
  componentInteraction,
  deleteUserMessage,
  editUserMessage,
  messageCommand,
  modalSubmit,
  slashCommand,
  userMessage,
  userThread,
} from './user-actions.ts';

export type * from './types.ts';

const DEFAULT_WAIT_MS = 5000;

export async function startDiscordEmulator(
  opts: DiscordEmulatorOptions = {},
): Promise<DiscordEmulator> {
  const applicationId = opts.applicationId ?? snowflake();
  const botId = opts.botUserId ?? applicationId;
  // Shaped like a real token: base64(bot id) . base64(timestamp) . HMAC.
  const botToken =
    opts.botToken ??
    `${Buffer.from(botId).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(27).toString('base64url')}`;
  const world = new World({ id: botId, username: 'threadmind', globalName: null, bot: true });
  const alice = world.user(snowflake());
  alice.username = 'alice';
  alice.globalName = 'Alice';
  const bob = world.user(snowflake());
  bob.username = 'bob';
  bob.globalName = 'Bob';
  // A third ordinary member, for conversations among several people.
  const mina = world.user(snowflake());
  mina.username = 'mina';
  mina.globalName = 'Mina';
  for (const seed of opts.guilds ?? defaultGuilds()) {
    const g = world.seedGuild(seed, alice.id, BOT_ROLE_PERMS, EVERYONE_PERMS);
    g.memberIds.push(bob.id, mina.id);
  }

  let origin = '';
  const cdn = new Cdn(() => `http://${origin}`);
  if (opts.cdnTtlMs !== undefined) cdn.ttlMs = opts.cdnTtlMs;
  const render = new Renderer(world, cdn);
  const calls: ApiCall[] = [];
  const gateway = new Gateway({
    botToken,
    heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 2500,
    resumeWindowMs: opts.resumeWindowMs,
    replayLimit: opts.replayLimit,
    allowedPrivileged: privilegedMask(opts.privilegedIntents),
    onIdentify: (sessionId) => {
      ctx.sessionStartRemaining = Math.max(0, ctx.sessionStartRemaining - 1);
      const guilds = [...world.guilds.values()].filter((g) => g.botMember);
      return {
        ready: {
          v: 10,
          user_settings: {},
          user: { ...render.user(world.botUser), verified: true, mfa_enabled: false, email: null },
          guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
          private_channels: [],
          relationships: [],
          presences: [],
          guild_join_requests: [],
          geo_ordered_rtc_regions: ['emulator'],
          session_type: 'normal',
          session_id: sessionId,
          // Discord hands out a different host for resuming; clients must use it.
          resume_gateway_url: `ws://${origin}/resume`,
          shard: [0, 1],
          application: { id: applicationId, flags: ctx.applicationFlags },
          auth: {},
        },
        guilds: guilds.map((g) => render.guildCreate(g)),
      };
    },
  });
  const ctx: EmuCtx = {
    world,
    render,
    cdn,
    gateway,
    botToken,
    applicationId,
    applicationFlags: opts.privilegedIntents?.messageContent === false ? 0 : 1 << 19,
    botId,
    ackWindowMs: opts.interactionAckWindowMs ?? 3000,
    interactions: new Map(),
    commands: new Map(),
    sessionStartRemaining: 1000,
    gatewayUrl: () => `ws://${origin}`,
  };
  const api = new HttpApi([...appRoutes(ctx), ...channelRoutes(ctx), ...interactionRoutes(ctx)], {
    botToken,
    calls,
    rateLimit: opts.rateLimit ?? { limit: 50, windowMs: 1000 },
  });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      void api.handle(req, res, url);
      return;
    }
    if (cdn.handle(req, res, url)) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('upgrade', (req, sock, head) => gateway.handleUpgrade(req, sock, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;

  const threadRecord = (id: string): ThreadRecord => {
    const c = world.channels.get(id);
    if (c === undefined) throw new Error(`Discord emulator: no thread ${id}`);
    const t: ThreadRecord = {
      id: c.id,
      parentId: c.parentId ?? '',
      guildId: c.guildId ?? '',
      name: c.name,
      ownerId: c.ownerId ?? '',
      type: c.type,
      createdAt: c.createdAt,
    };
    if (c.starterMessageId !== undefined) t.starterMessageId = c.starterMessageId;
    return t;
  };

  const interactionRecord = (id: string): InteractionRecord => {
    const s = ctx.interactions.get(id);
    if (s === undefined) throw new Error(`Discord emulator: no interaction ${id}`);
    const { messageId: _m, memberPermissions: _p, originalId, followupIds, ...rest } = s;
    const original = originalId === undefined ? undefined : world.message(s.channelId, originalId);
    const rec: InteractionRecord = {
      ...rest,
      followups: followupIds.flatMap((f) => {
        const m = world.message(s.channelId, f);
        return m === undefined ? [] : [render.recorded(m)];
      }),
    };
    if (original !== undefined) rec.original = render.recorded(original);
    return rec;
  };

  const guildInfo = (id: string): GuildInfo => {
    const g = world.guilds.get(id);
    if (g === undefined) throw new Error(`Discord emulator: no guild ${id}`);
    return {
      id: g.id,
      name: g.name,
      ownerId: g.ownerId,
      botMember: g.botMember,
      channels: world.guildChannels(g.id).map((c) => ({ id: c.id, name: c.name, type: c.type })),
    };
  };

  const describeState = (): string => {
    const recent = calls
      .slice(-10)
      .map(
        (c) => `  ${c.method} ${c.route} → ${c.status} ${clip(JSON.stringify(c.body ?? ''), 100)}`,
      );
    const msgs = world
      .allMessages()
      .slice(-15)
      .map((m) => {
        const who = m.msg.author.id === botId ? 'bot' : m.msg.author.username;
        const flags = `${m.deleted ? ' deleted' : ''}${m.ephemeral ? ' ephemeral' : ''}`;
        return `  ${m.msg.channel_id}/${m.msg.id}${flags} ${who}: ${clip(m.msg.content)}`;
      });
    const g = gateway.stats();
    return [
      `gateway: identified=${g.identified} resumed=${g.resumed} invalidated=${g.invalidated} connected=${g.connected}`,
      `last ${recent.length} of ${calls.length} REST calls:`,
      ...(recent.length > 0 ? recent : ['  (none)']),
      `messages (last ${msgs.length}):`,
      ...(msgs.length > 0 ? msgs : ['  (none)']),
    ].join('\n');
  };

  return {
    apiUrl: `http://${origin}/api`,
    gatewayUrl: `ws://${origin}`,
    botToken,
    applicationId,
    botUserId: botId,
    guilds: [...world.guilds.values()].map((g) => guildInfo(g.id)),
    users: [alice, bob, mina].map((u) => ({ id: u.id, username: u.username, bot: false })),
    calls,
    messages: (channelId) => world.messages(channelId).map((m) => render.recorded(m)),
    allMessages: () =>
      world.allMessages().map((m) => ({ ...render.recorded(m), deleted: m.deleted })),
    threads: () => world.threads().map((t) => threadRecord(t.id)),
    interactions: () => [...ctx.interactions.keys()].map(interactionRecord),
    registeredCommands: (scope) =>
      (ctx.commands.get(scope) ?? []).map((c) => ({ id: c.id, ...c.data })),
    waitFor: (probe, timeoutMs = DEFAULT_WAIT_MS) => waitFor(probe, timeoutMs, describeState),
    snowflake: () => snowflake(),
    dmChannelId: (userId) => world.dmChannel(userId).id,
    addGuild: (seed) => {
      const g = world.seedGuild(
        {
          id: seed.id ?? snowflake(),
          name: seed.name,
          channels: seed.channels,
          botMember: seed.botMember ?? false,
        },
        alice.id,
        BOT_ROLE_PERMS,
        EVERYONE_PERMS,
      );
      g.memberIds.push(bob.id, mina.id);
      // Only a server the bot is in tells it so (GUILD_CREATE).
      if (g.botMember) {
        gateway.dispatch('GUILD_CREATE', (intents) =>
          (intents & Intents.Guilds) === 0 ? undefined : render.guildCreate(g),
        );
      }
      return guildInfo(g.id);
    },
    groupDm: (userIds) => world.groupDm(userIds).id,
    installInGuild: (guildId) => {
      const g = world.guilds.get(guildId);
      if (g === undefined) throw new Error(`Discord emulator: no guild ${guildId}`);
      world.joinGuild(g, BOT_ROLE_PERMS);
      gateway.dispatch('GUILD_CREATE', (intents) =>
        (intents & Intents.Guilds) === 0 ? undefined : render.guildCreate(g),
      );
    },
    userMessage: async (m) => render.recorded(userMessage(ctx, m)),
    userThread: async (t) => threadRecord(userThread(ctx, t).id),
    slashCommand: async (c) => slashCommand(ctx, c),
    messageCommand: async (c) => messageCommand(ctx, c),
    componentInteraction: async (c) => componentInteraction(ctx, c),
    replayInteraction: async (r) => replayInteraction(ctx, r),
    replayFrame: (frame) => replayFrame(ctx, frame),
    modalSubmit: async (m) => modalSubmit(ctx, m),
    editUserMessage: async (channelId, messageId, content) =>
      render.recorded(editUserMessage(ctx, channelId, messageId, content)),
    deleteUserMessage: async (channelId, messageId) => deleteUserMessage(ctx, channelId, messageId),
    setPermissionOverwrites: (channelId, overwrites) => {
      const c = world.channels.get(channelId);
      if (c === undefined || c.guildId === undefined || c.type === 1) {
        throw new Error(`Discord emulator: no guild channel ${channelId}`);
      }
      c.permissionOverwrites = structuredClone(overwrites);
      emitChannelUpdate(ctx, c);
    },
    addRole: (guildId, name, permissions) => {
      const g = world.guilds.get(guildId);
      if (g === undefined) throw new Error(`Discord emulator: no guild ${guildId}`);
      const id = snowflake();
      g.roles.push({ id, name, permissions, position: g.roles.length, managed: false });
      return id;
    },
    addMember: (guildId, userId, roleIds = []) => {
      const g = world.guilds.get(guildId);
      if (g === undefined) throw new Error(`Discord emulator: no guild ${guildId}`);
      world.user(userId);
      if (!g.memberIds.includes(userId)) g.memberIds.push(userId);
      g.memberRoleIds ??= new Map();
      g.memberRoleIds.set(userId, [...roleIds]);
    },
    setMemberRoles: (guildId, userId, roleIds) => {
      const g = world.guilds.get(guildId);
      if (g === undefined || !g.memberIds.includes(userId)) {
        throw new Error(`Discord emulator: ${userId} is not a member of guild ${guildId}`);
      }
      g.memberRoleIds ??= new Map();
      g.memberRoleIds.set(userId, [...roleIds]);
      const d = { guild_id: guildId, ...render.member(g, userId) };
      gateway.dispatch('GUILD_MEMBER_UPDATE', (intents) =>
        (intents & Intents.GuildMembers) === 0 ? undefined : d,
      );
    },
    redispatchMessageCreate: (channelId, messageId) => {
      const m = world.message(channelId, messageId);
      if (m === undefined)
        throw new Error(`Discord emulator: no message ${messageId} in ${channelId}`);
      emitMessageCreate(ctx, m);
    },
    dropGatewayConnection: (o) => gateway.drop(o),
    gatewaySessions: () => gateway.stats(),
    expireGatewaySessions: () => gateway.expireDisconnected(),
    failNext: (route, fault) => api.failNext(route, fault),
    attachmentUrl: (id) => {
      const f = cdn.byId(id);
      if (f === undefined) throw new Error(`Discord emulator: no attachment ${id}`);
      return cdn.url(f);
    },
    setCdnTtlMs: (ms) => {
      cdn.ttlMs = ms;
    },
    advanceCdnClock: (ms) => {
      cdn.clockOffsetMs += ms;
    },
    cdnDownloads: () => cdn.downloads.map((d) => ({ ...d })),
    close: async () => {
      await gateway.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function privilegedMask(p: DiscordEmulatorOptions['privilegedIntents'] = {}): number {
  return (
    (p.guildMembers === false ? 0 : 1 << 1) |
    (p.presences === false ? 0 : 1 << 8) |
    (p.messageContent === false ? 0 : 1 << 15)
  );
}

function defaultGuilds(): DiscordGuildSeed[] {
  return [
    {
      id: snowflake(),
      name: 'Threadmind Lab',
      channels: [
        { id: snowflake(), name: 'general' },
        { id: snowflake(), name: 'llm-help' },
      ],
    },
    {
      id: snowflake(),
      name: 'Second Team',
      channels: [
        { id: snowflake(), name: 'general' },
        { id: snowflake(), name: 'random' },
      ],
    },
  ];
}
