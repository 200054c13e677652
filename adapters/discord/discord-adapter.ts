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
  Partials,
} from 'discord.js';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Addressed } from '../../src/model/incoming.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { threadName } from './commands.ts';
import { DiscordCommands } from './discord-commands.ts';
import { placeOf, stripBotMention } from './discord-events.ts';
import { DiscordPort } from './discord-port.ts';

export interface DiscordAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
}

export class DiscordAdapter {
  readonly client: Client;
  readonly port: DiscordPort;
  private readonly d: DiscordAdapterDeps;
  private readonly commands: DiscordCommands;

  constructor(d: DiscordAdapterDeps) {
    this.d = d;
    const { config } = d;
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      rest: { api: config.discord.apiUrl },
      // Nothing the bot sends may ping anyone.
      allowedMentions: { parse: [] },
    });
    this.port = new DiscordPort({
      rest: this.client.rest,
      applicationId: config.discordApplicationId ?? '',
      files: {
        allowedHosts: [...config.discord.fileHosts, new URL(config.discord.apiUrl).host],
        maxBytes: config.attachments.maxFileBytes,
        timeoutMs: config.attachments.downloadTimeoutMs,
      },
    });
    d.core.attach(this.port, {
      answerWithoutMention: config.discord.answerThreadsWithoutMention,
      projectNoun: 'server',
      updateIntervalMs: config.discord.updateIntervalMs,
      nativeStreaming: false,
      thinkingText: 'is thinking…',
    });
    this.commands = new DiscordCommands({
      client: this.client,
      port: this.port,
      core: d.core,
      log: d.log,
      threadAutoArchiveMinutes: config.discord.threadAutoArchiveMinutes,
    });
    this.client.on(Events.MessageCreate, (m) => {
      this.onMessage(m).catch((err: unknown) =>
        d.log.error({ err, platform: 'discord' }, 'message handler failed'),
      );
    });
    this.client.on(Events.InteractionCreate, (i) => {
      this.onInteraction(i).catch((err: unknown) =>
        d.log.error({ err, platform: 'discord' }, 'interaction handler failed'),
      );
    });
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
    await this.client.login(this.d.config.secrets.discordToken ?? '').catch((err: unknown) => {
      throw new Error(
        `Discord refused DISCORD_TOKEN (${err instanceof Error ? err.message : String(err)}); check the bot token and DISCORD_API_URL`,
        { cause: err },
      );
    });
    await ready;
    this.d.log.info(
      { user: this.client.user?.id, guilds: this.client.guilds.cache.size },
      'discord connected',
    );
  }

  async stop(): Promise<void> {
    await this.client.destroy();
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
    const files = [...message.attachments.values()].map((a) => this.port.fileRef(a));
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
    let addressed: Addressed;
    if (!inConversation) {
      if (!mentioned) {
        core.skipped('discord', message.id);
        return;
      }
      addressed = 'mention';
    } else if (channel.isDMBased()) {
      addressed = 'direct';
    } else {
      addressed = mentioned ? 'mention' : 'ambient';
    }
    await core.receiveMessage({
      ref,
      to,
      principal: message.author.id,
      text,
      messageId: message.id,
      receivedAt: Date.now(),
      traceId,
      addressed,
      dedupe: [`discord:msg:${message.id}`],
      files,
      ...(inConversation
        ? {}
        : {
            // A mention at a channel's top level continues in a thread started from it.
            openThread: async () => {
              const thread = await message.startThread({
                name: threadName(text),
                autoArchiveDuration: this.d.config.discord.threadAutoArchiveMinutes,
              });
              const threadRef: ThreadRef = { ...ref, sessionId: thread.id };
              return { ref: threadRef, to: { ref: threadRef, context: {} } };
            },
          }),
    });
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (!interaction.isChatInputCommand()) return;
    await this.commands.handle(interaction);
  }
}
