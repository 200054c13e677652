// Discord through discord.js: mentions start a thread, threads are sessions, slash commands ask,
// summarise, list files and forget. DISCORD_API_URL sets the REST base; the gateway URL comes from
// GET /gateway/bot, so the same code runs against Discord and against the local emulator.
import { randomUUID } from 'node:crypto';
import {
  type Attachment,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
  type SendableChannels,
} from 'discord.js';
import { downloadFile } from '../../src/attachments/download.ts';
import type { AttachmentIndex } from '../../src/attachments/index/index.ts';
import type { Ingestor } from '../../src/attachments/ingest.ts';
import type { Config } from '../../src/config/schema.ts';
import type { TurnRunner } from '../../src/core/turn-runner.ts';
import type { IncomingMessage } from '../../src/core/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Metrics } from '../../src/log/metrics.ts';
import { ownersOf, sessionKey, type ThreadRef } from '../../src/model/thread-ref.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { SessionHistory } from '../../src/store/session-history.ts';
import type { Store } from '../../src/store/store.ts';
import { threadName } from './commands.ts';
import { DiscordCommands } from './discord-commands.ts';
import { discordProjectId, refForChannel, stripBotMention } from './discord-events.ts';
import { DiscordReply } from './discord-reply.ts';

export interface DiscordAdapterDeps {
  config: Config;
  runner: TurnRunner;
  store: Store;
  history: SessionHistory;
  metrics: Metrics;
  log: Logger;
  ingestor?: Ingestor;
  index?: AttachmentIndex;
}

export class DiscordAdapter {
  readonly client: Client;
  private readonly d: DiscordAdapterDeps;
  private readonly allowedHosts: string[];
  private readonly commands: DiscordCommands;

  constructor(d: DiscordAdapterDeps) {
    this.d = d;
    this.allowedHosts = [...d.config.discord.fileHosts, new URL(d.config.discord.apiUrl).host];
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      rest: { api: d.config.discord.apiUrl },
      // Model output must never ping anyone.
      allowedMentions: { parse: [] },
    });
    this.commands = new DiscordCommands(this, d);
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

  get botId(): string {
    return this.client.user?.id ?? '';
  }

  async isParticipating(ref: ThreadRef): Promise<boolean> {
    const key = sessionKey(ref);
    return (
      (await this.d.store.kv.get(`participating:${key}`)) === true ||
      (await this.d.history.exists(key))
    );
  }

  async participate(ref: ThreadRef): Promise<void> {
    await this.d.store.kv.set(`participating:${sessionKey(ref)}`, true);
  }

  reply(
    channel: SendableChannels,
    traceId: string,
    interaction?: ChatInputCommandInteraction,
  ): DiscordReply {
    return new DiscordReply({
      channel,
      log: this.d.log.child({ trace_id: traceId, platform: 'discord' }),
      updateIntervalMs: this.d.config.discord.updateIntervalMs,
      ...(interaction ? { interaction } : {}),
    });
  }

  /** Downloads now (CDN URLs are signed and expire) and reads the files into `owner`. */
  ingest(owner: Owner, attachments: Attachment[], channel: SendableChannels, log: Logger): void {
    const ingestor = this.d.ingestor;
    if (!ingestor) return;
    for (const a of attachments) {
      const bytes = downloadFile({
        url: a.url,
        filename: a.name,
        allowedHosts: this.allowedHosts,
        maxBytes: this.d.config.attachments.maxFileBytes,
        timeoutMs: this.d.config.attachments.downloadTimeoutMs,
      }).then((r) => r.bytes);
      bytes.catch(() => undefined);
      ingestor
        .ingest(owner, { id: a.id, name: a.name, size: a.size }, () => bytes)
        .then(async (outcome) => {
          if (outcome.status === 'failed')
            await channel.send({
              content: `:warning: ${outcome.error.userMessage}`,
              allowedMentions: { parse: [] },
            });
          else if (outcome.status === 'ready' && outcome.notice)
            await channel.send({
              content: `:information_source: ${outcome.notice}`,
              allowedMentions: { parse: [] },
            });
        })
        .catch((err: unknown) => log.error({ err }, 'could not read or report an attachment'));
    }
  }

  submit(
    ref: ThreadRef,
    principal: string,
    text: string,
    messageId: string,
    reply: DiscordReply,
    traceId: string,
  ): void {
    const msg: IncomingMessage = {
      ref,
      principal,
      text,
      messageId,
      receivedAt: Date.now(),
      traceId,
    };
    void this.d.runner.submit(msg, reply);
  }

  private async onMessage(message: Message): Promise<void> {
    if (message.author.bot || message.system) return;
    const botId = this.botId;
    if (
      !(await this.d.store.claim(
        `msg:discord:${message.id}`,
        'seen',
        this.d.config.store.dedupeTtlSeconds * 1000,
      ))
    ) {
      this.d.metrics.duplicateEvents.inc({ platform: 'discord' });
      return;
    }
    const traceId = randomUUID();
    const log = this.d.log.child({
      trace_id: traceId,
      platform: 'discord',
      channel: message.channelId,
    });
    const channel = message.channel;
    const mentioned = message.mentions.users.has(botId);
    const text = stripBotMention(message.content, botId);
    const files = [...message.attachments.values()];
    let ref = refForChannel(channel, message.guildId, message.author.id);
    if (!channel.isSendable()) return;
    if (!ref) {
      // A channel's top level: files belong to the channel; a mention starts a thread.
      const channelOwner: Owner = {
        kind: 'channel',
        key: `discord:${discordProjectId(message.guildId, message.author.id)}:${message.channelId}`,
      };
      if (files.length) this.ingest(channelOwner, files, channel, log);
      if (!mentioned || !text) return;
      const thread = await message.startThread({
        name: threadName(text),
        autoArchiveDuration: this.d.config.discord.threadAutoArchiveMinutes,
      });
      ref = {
        platform: 'discord',
        projectId: discordProjectId(message.guildId, message.author.id),
        channelId: message.channelId,
        sessionId: thread.id,
      };
      await this.participate(ref);
      this.submit(ref, message.author.id, text, message.id, this.reply(thread, traceId), traceId);
      return;
    }
    const [session] = ownersOf(ref);
    if (files.length && session) this.ingest(session, files, channel, log);
    const inThread = channel.isThread();
    if (
      inThread &&
      !mentioned &&
      !(this.d.config.discord.answerThreadsWithoutMention && (await this.isParticipating(ref)))
    )
      return;
    if (!text) return;
    await this.participate(ref);
    this.submit(ref, message.author.id, text, message.id, this.reply(channel, traceId), traceId);
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (!interaction.isChatInputCommand()) return;
    await this.commands.handle(interaction);
  }
}
