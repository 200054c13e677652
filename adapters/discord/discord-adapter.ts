// Discord through discord.js: mentions start a thread, threads are sessions, slash commands ask,
// summarise, list files and forget. The adapter only translates gateway events into the core's
// InboundMessages; DiscordPort carries the replies. DISCORD_API_URL sets the REST base; the gateway
// URL comes from GET /gateway/bot, so the same code runs against Discord and the local emulator.
import { randomUUID } from 'node:crypto';
import {
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  type PartialMessage,
  Partials,
  Routes,
} from 'discord.js';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { GatewaySessionStore } from '../../src/model/gateway-session.ts';
import type { Addressed } from '../../src/model/incoming.ts';
import { isActionRef } from '../../src/model/interaction.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { SharedRateLimits } from '../../src/model/rate-limits.ts';
import { flowOf, messageCommandOf, SERVER_INSTALL_COMMANDS, threadName } from './commands.ts';
import { DiscordCommands } from './discord-commands.ts';
import { placeOf, stripBotMention, userInstallPlace } from './discord-events.ts';
import { DiscordGroupSync } from './discord-groups.ts';
import { DiscordInteractions } from './discord-interactions.ts';
import { DiscordPort } from './discord-port.ts';
import { sharedMakeRequest } from './discord-rest.ts';
import { topLevelParts } from './discord-thread-open.ts';
import { answerFailed, answerUnknown, isKnownCommand } from './discord-unknown.ts';
import { answerUntaken } from './discord-untaken.ts';
import { GatewayHandover } from './gateway-handover.ts';

export interface DiscordAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  /** Split roles: REST rate limits shared with the other replicas. */
  rateLimits?: SharedRateLimits | undefined;
  /** Where role memberships go (knowledge access); absent: roles are not synced. */
  groups?: PlatformGroupSink | undefined;
  /** A gateway role: where its session is kept for the next holder (see gateway-handover.ts). */
  handover?: { sessions: GatewaySessionStore; saveMs: number } | undefined;
}

export class DiscordAdapter {
  readonly client: Client;
  readonly port: DiscordPort;
  private readonly d: DiscordAdapterDeps;
  private readonly commands: DiscordCommands;
  /** The bot's user id when this process posts over REST without a gateway (a worker). */
  private restSelfId: string | undefined;
  private readonly groupSync: DiscordGroupSync | undefined;
  private readonly interactions: DiscordInteractions;
  private readonly handover: GatewayHandover | undefined;

  constructor(d: DiscordAdapterDeps) {
    this.d = d;
    const { config } = d;
    const syncRoles = d.groups !== undefined && config.knowledge.groupSync.enabled;
    const token = config.secrets.discordToken ?? '';
    const log = d.log.child({ component: 'gateway' });
    this.handover = d.handover && new GatewayHandover({ ...d.handover, token, log });
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
        // Role changes of members (the Server Members privileged intent, as the audience needs).
        ...(syncRoles ? [GatewayIntentBits.GuildMembers] : []),
      ],
      // Message: edits and deletions of messages sent before the bot started still arrive.
      partials: [Partials.Channel, Partials.Message],
      rest: {
        api: config.discord.apiUrl,
        ...(d.rateLimits ? { makeRequest: sharedMakeRequest(d.rateLimits) } : {}),
      },
      // Nothing the bot sends may ping anyone.
      allowedMentions: { parse: [] },
      ...(this.handover ? { ws: this.handover.wsOptions() } : {}),
    });
    this.port = new DiscordPort({
      rest: this.client.rest,
      applicationId: config.discordApplicationId ?? '',
      selfId: () => this.client.user?.id ?? this.restSelfId,
      files: {
        allowedHosts: [...config.discord.fileHosts, new URL(config.discord.apiUrl).host],
        maxBytes: config.attachments.maxFileBytes,
        timeoutMs: config.attachments.downloadTimeoutMs,
      },
      threadAutoArchiveMinutes: config.discord.threadAutoArchiveMinutes,
    });
    const parts = {
      client: this.client,
      port: this.port,
      core: d.core,
      threadAutoArchiveMinutes: config.discord.threadAutoArchiveMinutes,
    };
    this.interactions = new DiscordInteractions({
      ...parts,
      log: d.log.child({ component: 'discord-interactions' }),
    });
    d.core.attach(
      this.port,
      {
        ...surfaceTexts.discord,
        admins: config.discord.admins,
        updateIntervalMs: config.discord.updateIntervalMs,
        nativeStreaming: false,
        thinkingText: surfaceTexts.thinking,
      },
      this.interactions,
    );
    this.commands = new DiscordCommands({ ...parts, log: d.log });
    const every = config.knowledge.groupSync.intervalMinutes;
    this.groupSync =
      syncRoles && d.groups ? new DiscordGroupSync(this.client, d.groups, d.log, every) : undefined;
    this.listen();
  }

  /** The gateway's events: messages, their edits and deletions, interactions. */
  private listen(): void {
    const { d } = this;
    const failed = (what: string) => (err: unknown) =>
      d.log.error({ err, platform: 'discord' }, `${what} handler failed`);
    this.client.on(Events.MessageCreate, (m) => {
      const handled = this.onMessage(m).catch(failed('message'));
      this.handover?.track(handled);
    });
    this.client.on(Events.MessageUpdate, (_old, m) => {
      this.onChange(m, m.content).catch(failed('message update'));
    });
    this.client.on(Events.MessageDelete, (m) => {
      this.onChange(m, undefined).catch(failed('message delete'));
    });
    this.client.on(Events.InteractionCreate, (i) => {
      this.onInteraction(i).catch(async (err: unknown) => {
        d.log.error({ err, platform: 'discord' }, 'interaction handler failed');
        await answerFailed(i, d.log);
      });
    });
    answerUntaken(this.client, d.log.child({ component: 'discord-interactions' }));
    this.client.on(Events.Error, (err) =>
      d.log.error({ err, platform: 'discord' }, 'discord client error'),
    );
    this.client.on(Events.ShardResume, (id, replayed) =>
      d.log.info({ shard: id, replayed }, 'discord gateway resumed'),
    );
  }

  async start(): Promise<void> {
    const ready = new Promise<void>((resolve) =>
      this.client.once(Events.ClientReady, () => resolve()),
    );
    await this.handover?.begin(this.client);
    await this.client.login(this.d.config.secrets.discordToken ?? '').catch(tokenRefused);
    await ready;
    this.d.log.info(
      { user: this.client.user?.id, guilds: this.client.guilds.cache.size },
      'discord connected',
    );
    this.groupSync?.start();
  }

  /**
   * REST only, no gateway (a worker: it posts the answers, the gateway process receives). The
   * bot's own id tells its messages apart when a thread is read.
   */
  async startRest(): Promise<void> {
    this.client.rest.setToken(this.d.config.secrets.discordToken ?? '');
    const me = (await this.client.rest.get(Routes.user()).catch(tokenRefused)) as { id: string };
    this.restSelfId = me.id;
    this.d.log.info({ user: me.id }, 'discord REST ready (no gateway in this process)');
  }

  /** A gateway stepping down: its session is left resumable for the next holder (it stops too). */
  async handOver(): Promise<void> {
    await this.handover?.handOver();
  }

  async stop(): Promise<void> {
    this.groupSync?.stop();
    this.handover?.stopSaving();
    await this.client.destroy();
  }

  private get threadOptions() {
    const autoArchiveMinutes = this.d.config.discord.threadAutoArchiveMinutes;
    const replyChain = (c: string, m: string) => this.port.reader.replyChain(c, m);
    return { rest: this.client.rest, autoArchiveMinutes, replyChain };
  }

  private async onMessage(message: Message): Promise<void> {
    const { core } = this.d;
    if (message.author.bot || message.system) {
      core.skipped('discord', message.id);
      return;
    }
    const botId = this.client.user?.id ?? '';
    const traceId = randomUUID();
    const channel = message.channel;
    const { ref, conversation: inConversation } = placeOf(
      channel,
      message.guildId,
      message.author.id,
    );
    const to: Destination = { ref, context: {} };
    const files = [...message.attachments.values()].map((a) => this.port.reader.fileRef(a));
    const text = stripBotMention(message.content, botId);
    core.receiveFiles({
      ref,
      to,
      where: inConversation ? 'session' : 'channel',
      messageId: message.id,
      text,
      files,
      traceId,
    });
    const mentioned = message.mentions.users.has(botId);
    // Unmentioned messages go to the core too: the channel's reply mode decides.
    const addressed: Addressed = channel.isDMBased() ? 'direct' : mentioned ? 'mention' : 'ambient';
    const mentionsOthers =
      !mentioned &&
      (message.mentions.users.some((u) => u.id !== botId) || message.mentions.roles.size > 0);
    await core.receiveMessage({
      ref,
      to,
      principal: message.author.id,
      principalName: message.author.globalName ?? message.author.username,
      text,
      messageId: message.id,
      receivedAt: Date.now(),
      traceId,
      addressed,
      dedupe: [`discord:msg:${message.id}`],
      files,
      topLevel: !inConversation,
      mentionsOthers,
      ...(inConversation ? {} : topLevelParts(this.threadOptions, ref, message, threadName(text))),
    });
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (
      (interaction.isButton() || interaction.isModalSubmit()) &&
      isActionRef(interaction.customId)
    ) {
      await this.interactions.act(interaction);
      return;
    }
    const c =
      interaction.isChatInputCommand() || interaction.isMessageContextMenuCommand()
        ? interaction
        : undefined;
    if (!c || !isKnownCommand(c.commandName)) {
      await answerUnknown(interaction, this.d.log);
      return;
    }
    if (SERVER_INSTALL_COMMANDS.has(c.commandName) && userInstallPlace(c)) {
      await this.commands.refuseServerOnly(c);
      return;
    }
    if (c.isMessageContextMenuCommand()) {
      const spec = messageCommandOf(c.commandName);
      if (spec) await this.interactions.messageCommand(c, spec);
      else await answerUnknown(c, this.d.log);
      return;
    }
    const flow = flowOf(c);
    if (flow) {
      await this.interactions.command(c, flow).catch((err: unknown) => {
        this.d.log.error({ err, command: c.commandName }, 'command failed');
      });
      return;
    }
    await this.commands.handle(c);
  }

  /** An edit (`text`) or a deletion of a person's message, for the conversation it belongs to. */
  private async onChange(
    m: Message | PartialMessage,
    text: string | null | undefined,
  ): Promise<void> {
    if (m.author?.bot || m.author?.id === this.client.user?.id) return;
    const channel = m.channel;
    const { ref } = placeOf(channel, m.guildId, m.author?.id ?? '');
    // A deletion carries no text; an edit of an uncached message may lack it (then nothing changes).
    if (text === null) return;
    await this.d.core.receiveChange({
      ref,
      messageId: m.id,
      ...(text !== undefined ? { text: stripBotMention(text, this.client.user?.id ?? '') } : {}),
      traceId: randomUUID(),
    });
  }
}

function tokenRefused(err: unknown): never {
  throw new Error(
    `Discord refused DISCORD_TOKEN (${err instanceof Error ? err.message : String(err)}); check the bot token and DISCORD_API_URL`,
    { cause: err },
  );
}
