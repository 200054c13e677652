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
  MessageReferenceType,
  type PartialMessage,
  Partials,
} from 'discord.js';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Addressed } from '../../src/model/incoming.ts';
import type { Destination, ThreadMessage } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { ASK_ABOUT_COMMAND, threadName } from './commands.ts';
import { DiscordCommands } from './discord-commands.ts';
import { placeOf, stripBotMention } from './discord-events.ts';
import { DiscordFeedback, isFeedbackInteraction } from './discord-feedback.ts';
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
  private readonly feedback: DiscordFeedback;

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
      // Message: edits and deletions of messages sent before the bot started still arrive.
      partials: [Partials.Channel, Partials.Message],
      rest: { api: config.discord.apiUrl },
      // Nothing the bot sends may ping anyone.
      allowedMentions: { parse: [] },
    });
    this.port = new DiscordPort({
      rest: this.client.rest,
      applicationId: config.discordApplicationId ?? '',
      selfId: () => this.client.user?.id,
      files: {
        allowedHosts: [...config.discord.fileHosts, new URL(config.discord.apiUrl).host],
        maxBytes: config.attachments.maxFileBytes,
        timeoutMs: config.attachments.downloadTimeoutMs,
      },
    });
    d.core.attach(this.port, {
      projectNoun: 'server',
      settingsAdmins: "members with the Manage Channels permission and the bot's admins",
      feedbackAdmins: "members with the Manage Server permission and the bot's admins",
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
      admins: config.discord.admins,
    });
    this.feedback = new DiscordFeedback({
      client: this.client,
      core: d.core,
      log: d.log,
      admins: config.discord.admins,
    });
    this.client.on(Events.MessageCreate, (m) => {
      this.onMessage(m).catch((err: unknown) =>
        d.log.error({ err, platform: 'discord' }, 'message handler failed'),
      );
    });
    this.client.on(Events.MessageUpdate, (_old, m) => {
      this.onChange(m, m.content).catch((err: unknown) =>
        d.log.error({ err, platform: 'discord' }, 'message update handler failed'),
      );
    });
    this.client.on(Events.MessageDelete, (m) => {
      this.onChange(m, undefined).catch((err: unknown) =>
        d.log.error({ err, platform: 'discord' }, 'message delete handler failed'),
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
    // Unmentioned messages go to the core too: the channel's reply mode decides.
    const addressed: Addressed = channel.isDMBased() ? 'direct' : mentioned ? 'mention' : 'ambient';
    const mentionsOthers =
      !mentioned &&
      (message.mentions.users.some((u) => u.id !== botId) || message.mentions.roles.size > 0);
    const replyTo = !inConversation ? message.reference : null;
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
      ...(replyTo?.messageId && replyTo.type === MessageReferenceType.Default
        ? { replyChain: () => this.replyChain(replyTo.channelId, replyTo.messageId ?? '') }
        : {}),
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
    if (
      (interaction.isButton() || interaction.isModalSubmit()) &&
      isFeedbackInteraction(interaction.customId)
    ) {
      await (interaction.isButton()
        ? this.feedback.button(interaction)
        : this.feedback.reason(interaction));
      return;
    }
    if (interaction.isMessageContextMenuCommand()) {
      if (interaction.commandName === ASK_ABOUT_COMMAND) await this.commands.askAbout(interaction);
      return;
    }
    if (!interaction.isChatInputCommand()) return;
    if (interaction.commandName === 'feedback-export') {
      await this.feedback.export(interaction).catch((err: unknown) => {
        this.d.log.error({ err, command: 'feedback-export' }, 'command failed');
      });
      return;
    }
    await this.commands.handle(interaction);
  }

  /** The messages a reply answers, oldest first, up to a few levels up. */
  private async replyChain(channelId: string, messageId: string): Promise<ThreadMessage[]> {
    const chain: ThreadMessage[] = [];
    let next: { channelId: string; messageId: string } | undefined = { channelId, messageId };
    while (next && chain.length < REPLY_CHAIN_DEPTH) {
      const m = await this.port.fetchMessage(next.channelId, next.messageId);
      if (!m) break;
      chain.unshift(this.port.threadMessage(m));
      const ref = m.message_reference;
      next =
        ref?.message_id &&
        (ref.type ?? MessageReferenceType.Default) === MessageReferenceType.Default
          ? { channelId: ref.channel_id ?? next.channelId, messageId: ref.message_id }
          : undefined;
    }
    return chain;
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

/** How far up a reply chain a mention reads. */
const REPLY_CHAIN_DEPTH = 10;
