// /ask, /summarize, /files, /forget. Every interaction is deferred first: Discord drops an
// interaction that is not acknowledged within 3 seconds.
import { randomUUID } from 'node:crypto';
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  PermissionFlagsBits,
  type SendableChannels,
} from 'discord.js';
import { ownerLabel } from '../../src/attachments/attachment-tools.ts';
import { ownersOf, sessionKey, type ThreadRef } from '../../src/model/thread-ref.ts';
import type { Owner } from '../../src/scope/scope.ts';
import { threadName } from './commands.ts';
import type { DiscordAdapter, DiscordAdapterDeps } from './discord-adapter.ts';
import { discordProjectId, refForChannel } from './discord-events.ts';

const NO_PINGS = { parse: [] as never[] };

export class DiscordCommands {
  private readonly a: DiscordAdapter;
  private readonly d: DiscordAdapterDeps;

  constructor(adapter: DiscordAdapter, d: DiscordAdapterDeps) {
    this.a = adapter;
    this.d = d;
  }

  async handle(i: ChatInputCommandInteraction): Promise<void> {
    const ephemeral = i.commandName === 'files' || i.commandName === 'forget';
    await i.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    const traceId = randomUUID();
    const log = this.d.log.child({
      trace_id: traceId,
      platform: 'discord',
      command: i.commandName,
    });
    try {
      const channel = i.channel ?? (await this.a.client.channels.fetch(i.channelId));
      if (!channel?.isSendable()) {
        await i.editReply(
          'I cannot post in this channel. Check that I have the Send Messages permission here.',
        );
        return;
      }
      const ref = refForChannel(channel, i.guildId, i.user.id);
      switch (i.commandName) {
        case 'ask':
          return await this.ask(i, channel, ref, traceId);
        case 'summarize':
          return await this.summarize(i, channel, ref, traceId);
        case 'files':
          return await this.files(i, ref);
        case 'forget':
          return await this.forget(i, channel, ref);
        default:
          await i.editReply(`I do not know the command /${i.commandName}.`);
      }
    } catch (err) {
      log.error({ err }, 'command failed');
      await i
        .editReply(
          ':warning: Something went wrong with that command. The details are in the bot’s log.',
        )
        .catch(() => undefined);
    }
  }

  private async ask(
    i: ChatInputCommandInteraction,
    channel: SendableChannels,
    ref: ThreadRef | undefined,
    traceId: string,
  ): Promise<void> {
    const question = i.options.getString('question', true);
    const file = i.options.getAttachment('file');
    const log = this.d.log.child({ trace_id: traceId, platform: 'discord' });
    let target = channel;
    let session = ref;
    let interaction: ChatInputCommandInteraction | undefined = i;
    if (!session) {
      // At a channel's top level the answer continues in a thread started from the reply.
      const starter = await i.editReply({
        content: `**<@${i.user.id}> asked:** ${question}`.slice(0, 2000),
        allowedMentions: NO_PINGS,
      });
      const thread = await starter.startThread({
        name: threadName(question),
        autoArchiveDuration: this.d.config.discord.threadAutoArchiveMinutes,
      });
      target = thread;
      interaction = undefined;
      session = {
        platform: 'discord',
        projectId: discordProjectId(i.guildId, i.user.id),
        channelId: i.channelId,
        sessionId: thread.id,
      };
    }
    const [owner] = ownersOf(session);
    if (file && owner) this.a.ingest(owner, [file], target, log);
    await this.a.participate(session);
    this.a.submit(
      session,
      i.user.id,
      question,
      i.id,
      this.a.reply(target, traceId, interaction),
      traceId,
    );
  }

  private async summarize(
    i: ChatInputCommandInteraction,
    channel: SendableChannels,
    ref: ThreadRef | undefined,
    traceId: string,
  ): Promise<void> {
    if (!ref) {
      await i.editReply('Use /summarize inside a thread I have been answering in.');
      return;
    }
    const reply = this.a.reply(channel, traceId, i);
    await this.d.runner.summarize(
      {
        ref,
        principal: i.user.id,
        text: 'summarize',
        messageId: i.id,
        receivedAt: Date.now(),
        traceId,
      },
      reply,
    );
  }

  private async files(i: ChatInputCommandInteraction, ref: ThreadRef | undefined): Promise<void> {
    const index = this.d.index;
    const project = discordProjectId(i.guildId, i.user.id);
    const owners: Owner[] = ref
      ? ownersOf(ref)
      : [
          { kind: 'channel', key: `discord:${project}:${i.channelId}` },
          { kind: 'project', key: `discord:${project}` },
        ];
    const files = index ? await index.listFiles(owners) : [];
    if (files.length === 0) {
      await i.editReply('I cannot see any files here yet. Attach one to a message or to /ask.');
      return;
    }
    const lines = files.map(
      (f) =>
        `• ${f.filename} (${f.kind}${f.pages ? `, ${f.pages} pages` : ''}, ${ownerLabel(f.owner)})`,
    );
    await i.editReply({
      content: `Files I can see here:\n${lines.join('\n')}`.slice(0, 2000),
      allowedMentions: NO_PINGS,
    });
  }

  private async forget(
    i: ChatInputCommandInteraction,
    channel: SendableChannels,
    ref: ThreadRef | undefined,
  ): Promise<void> {
    if (!ref || !channel.isThread()) {
      await i.editReply('Use /forget inside the thread I should forget.');
      return;
    }
    const allowed =
      channel.ownerId === i.user.id ||
      (i.memberPermissions?.has(PermissionFlagsBits.ManageThreads) ?? false);
    if (!allowed) {
      await i.editReply(
        'Only the person who started this thread, or someone with Manage Threads, can make me forget it.',
      );
      return;
    }
    const key = sessionKey(ref);
    await this.d.history.clear(key);
    await this.d.store.kv.delete(`participating:${key}`);
    await this.d.store.kv.delete(`meta:${key}`);
    const [session] = ownersOf(ref);
    if (session) await this.d.ingestor?.removeOwner(session);
    await i.editReply(
      'Done: I have forgotten this thread, its history and the files posted in it.',
    );
  }
}
