// /ask, /summarize, /files, /forget. Every interaction is deferred first: Discord drops an
// interaction that is not acknowledged within 3 seconds. Replies are rendered like any other bot
// text (RenderedText), so a command's reply cannot ping anyone either.
import { randomUUID } from 'node:crypto';
import {
  type ChatInputCommandInteraction,
  type Client,
  MessageFlags,
  PermissionFlagsBits,
} from 'discord.js';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { threadName } from './commands.ts';
import { discordProjectId, refForChannel } from './discord-events.ts';
import { DISCORD_LIMIT, type DiscordPort } from './discord-port.ts';

export interface DiscordCommandsOptions {
  client: Client;
  port: DiscordPort;
  core: Conversation;
  log: Logger;
  threadAutoArchiveMinutes: 60 | 1440 | 4320 | 10080;
}

export class DiscordCommands {
  private readonly o: DiscordCommandsOptions;

  constructor(o: DiscordCommandsOptions) {
    this.o = o;
  }

  /** Edits the deferred reply with bot text, rendered and neutralised like every other post. */
  private async reply(i: ChatInputCommandInteraction, markdown: string): Promise<void> {
    const [first] = RenderedText.render(this.o.port.format, markdown, 'message', DISCORD_LIMIT);
    await i.editReply({ content: first?.text ?? '', allowedMentions: { parse: [] } });
  }

  async handle(i: ChatInputCommandInteraction): Promise<void> {
    const ephemeral = i.commandName === 'files' || i.commandName === 'forget';
    await i.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    const traceId = randomUUID();
    const log = this.o.log.child({
      trace_id: traceId,
      platform: 'discord',
      command: i.commandName,
    });
    try {
      const channel = i.channel ?? (await this.o.client.channels.fetch(i.channelId));
      if (!channel?.isSendable()) {
        await this.reply(
          i,
          'I cannot post in this channel. Check that I have the Send Messages permission here.',
        );
        return;
      }
      const ref = refForChannel(channel, i.guildId, i.user.id);
      switch (i.commandName) {
        case 'ask':
          return await this.ask(i, ref, traceId);
        case 'summarize':
          return await this.summarize(i, ref, traceId);
        case 'files':
          return await this.reply(
            i,
            await this.o.core.listFiles(
              ref ?? {
                platform: 'discord',
                projectId: discordProjectId(i.guildId, i.user.id),
                channelId: i.channelId,
              },
            ),
          );
        case 'forget':
          return await this.forget(i, ref, channel.isThread() ? channel.ownerId : null);
        default:
          await this.reply(i, `I do not know the command /${i.commandName}.`);
      }
    } catch (err) {
      log.error({ err }, 'command failed');
      await this.reply(
        i,
        '⚠️ Something went wrong with that command. The details are in the bot’s log.',
      ).catch(() => undefined);
    }
  }

  private async ask(
    i: ChatInputCommandInteraction,
    ref: ThreadRef | undefined,
    traceId: string,
  ): Promise<void> {
    const question = i.options.getString('question', true);
    const file = i.options.getAttachment('file');
    let session = ref;
    // In a thread the first answer message is the deferred reply itself.
    let to: Destination | undefined = ref
      ? { ref, context: { interactionToken: i.token } }
      : undefined;
    if (!session) {
      // At a channel's top level the answer continues in a thread started from the reply.
      const asker = i.user.globalName ?? i.user.username;
      await this.reply(i, `**${asker} asked:** ${question}`);
      const starter = await i.fetchReply();
      const thread = await starter.startThread({
        name: threadName(question),
        autoArchiveDuration: this.o.threadAutoArchiveMinutes,
      });
      session = {
        platform: 'discord',
        projectId: discordProjectId(i.guildId, i.user.id),
        channelId: i.channelId,
        sessionId: thread.id,
      };
      to = { ref: session, context: {} };
    }
    if (!to) return;
    const files = file ? [this.o.port.fileRef(file)] : [];
    this.o.core.receiveFiles({
      ref: session,
      to,
      where: 'session',
      messageId: i.id,
      text: question,
      files,
      traceId,
    });
    await this.o.core.receiveMessage({
      ref: session,
      to,
      principal: i.user.id,
      text: question,
      messageId: i.id,
      receivedAt: Date.now(),
      traceId,
      addressed: 'command',
      dedupe: [`discord:interaction:${i.id}`],
    });
  }

  private async summarize(
    i: ChatInputCommandInteraction,
    ref: ThreadRef | undefined,
    traceId: string,
  ): Promise<void> {
    if (!ref) {
      await this.reply(i, 'Use /summarize inside a thread I have been answering in.');
      return;
    }
    await this.o.core.summarize({
      ref,
      to: { ref, context: { interactionToken: i.token } },
      principal: i.user.id,
      text: 'summarize',
      messageId: i.id,
      receivedAt: Date.now(),
      traceId,
      addressed: 'command',
      dedupe: [`discord:interaction:${i.id}`],
    });
  }

  private async forget(
    i: ChatInputCommandInteraction,
    ref: ThreadRef | undefined,
    threadOwner: string | null,
  ): Promise<void> {
    if (!ref || threadOwner === null) {
      await this.reply(i, 'Use /forget inside the thread I should forget.');
      return;
    }
    const allowed =
      threadOwner === i.user.id ||
      (i.memberPermissions?.has(PermissionFlagsBits.ManageThreads) ?? false);
    if (!allowed) {
      await this.reply(
        i,
        'Only the person who started this thread, or someone with Manage Threads, can make me forget it.',
      );
      return;
    }
    await this.reply(i, await this.o.core.forget(ref));
  }
}
