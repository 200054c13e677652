// /ask and /summarize (the commands that start a turn). Every interaction is deferred first: Discord drops an
// interaction that is not acknowledged within 3 seconds. Replies are rendered like any other bot
// text (RenderedText), so a command's reply cannot ping anyone either.
import { randomUUID } from 'node:crypto';
import {
  type ChatInputCommandInteraction,
  type Client,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
} from 'discord.js';
import type { Conversation } from '../../src/core/conversation.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Destination, InboundMessage, Intent } from '../../src/model/incoming.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { commandOf, threadName } from './commands.ts';
import { placeOf, userInstallDestination, userInstallPlace } from './discord-events.ts';
import { discordText } from './discord-format.ts';
import type { DiscordPort } from './discord-port.ts';
import { threadFrom } from './discord-thread-open.ts';

export interface DiscordCommandsOptions {
  client: Client;
  port: DiscordPort;
  core: Conversation;
  log: Logger;
  threadAutoArchiveMinutes: 60 | 1440 | 4320 | 10080;
}

/** Edits the deferred reply with words of the core's (or the bot's); the reply's message id. */
export async function editReply(
  i: ChatInputCommandInteraction | MessageContextMenuCommandInteraction,
  markdown: string,
): Promise<string> {
  return (await i.editReply({ content: discordText(markdown), allowedMentions: { parse: [] } })).id;
}

/** The intent a slash command starts (the core's commands table), if it starts one. */
function intentOf(i: ChatInputCommandInteraction): Intent | undefined {
  const spec = commandOf(i);
  return spec && 'intent' in spec.starts ? spec.starts.intent : undefined;
}

export class DiscordCommands {
  private readonly o: DiscordCommandsOptions;

  constructor(o: DiscordCommandsOptions) {
    this.o = o;
  }

  /**
   * A command that needs the bot in the server (its channel settings, its votes), used through a
   * user install where the server did not add it: refused in words, only to the person.
   */
  async refuseServerOnly(
    i: ChatInputCommandInteraction | MessageContextMenuCommandInteraction,
  ): Promise<void> {
    await i.deferReply({ flags: MessageFlags.Ephemeral });
    const name = i.isChatInputCommand() ? `/${i.commandName}` : `“${i.commandName}”`;
    await editReply(i, messages.serverOnly(name));
  }

  /**
   * The thread `/ask` opens for its answer, from the deferred reply (which now shows the question):
   * named ahead by that reply's id, opened by whoever runs the turn (a worker, in split roles),
   * like a top-level mention's (discord-thread-open.ts). The command's file goes into that thread's
   * session (its job numbered before the question), a failure to read it told in the channel: the
   * thread may not be open yet, and the interaction's reply is the thread's first message.
   */
  private async askThread(
    i: ChatInputCommandInteraction,
    here: ThreadRef,
    traceId: string,
  ): Promise<Pick<InboundMessage, 'threadAhead' | 'openThread' | 'platformIds'>> {
    const question = i.options.getString('question') ?? '';
    const asked = await editReply(
      i,
      messages.askedBy(i.user.globalName ?? i.user.username, question),
    );
    this.take(i, { ...here, sessionId: asked }, { ref: here, context: {} }, traceId);
    const open = { rest: this.o.client.rest, autoArchiveMinutes: this.o.threadAutoArchiveMinutes };
    return threadFrom(open, here, asked, threadName(question));
  }

  /** The command's file, for the session it goes to (told before the question, as a message's). */
  private take(
    i: ChatInputCommandInteraction,
    session: ThreadRef,
    to: Destination,
    traceId: string,
  ): void {
    const file = i.options.getAttachment('file');
    this.o.core.receiveFiles({
      ref: session,
      to,
      where: 'session',
      messageId: i.id,
      text: i.options.getString('question') ?? '',
      files: file ? [this.o.port.reader.fileRef(file)] : [],
      traceId,
    });
  }

  /** What every command's message tells the core: who, the question, its dedupe key. */
  private inbound(i: ChatInputCommandInteraction, intent: Intent, traceId: string) {
    return {
      principal: i.user.id,
      text: i.options.getString('question') ?? '',
      messageId: i.id,
      receivedAt: Date.now(),
      traceId,
      addressed: 'command' as const,
      intent,
      dedupe: [`discord:interaction:${i.id}`],
    };
  }

  /**
   * A command that starts a turn. Through a user install it is answered privately through the
   * interaction, in the person's own conversation about this channel: nothing of the channel is
   * read (the bot may not), so `/ask` answers from the question, its file and the conversation.
   */
  async handle(i: ChatInputCommandInteraction): Promise<void> {
    const own = userInstallPlace(i);
    const intent = intentOf(i);
    // (A command that needs the server is refused before it gets here: discord-adapter.ts.)
    if (own && !intent) return this.refuseServerOnly(i);
    // Deferred at once: Discord drops an interaction not acknowledged within 3 s.
    await i.deferReply(own ? { flags: MessageFlags.Ephemeral } : {});
    const traceId = randomUUID();
    try {
      if (!intent) {
        await editReply(i, messages.unknownCommand(`/${i.commandName}`));
        return;
      }
      const where = own ? this.asUser(i, own, traceId) : await this.inChannel(i, intent, traceId);
      if (where)
        await this.o.core.receiveMessage({ ...this.inbound(i, intent, traceId), ...where });
      else await editReply(i, messages.cannotPostHere);
    } catch (err) {
      this.o.log.error({ err, trace_id: traceId, command: i.commandName }, 'command failed');
      await editReply(i, messages.error(messages.commandFailed)).catch(() => undefined);
    }
  }

  /** A user install's turn: its own conversation, answered through the interaction only. */
  private asUser(i: ChatInputCommandInteraction, ref: ThreadRef, traceId: string) {
    const to = userInstallDestination(ref, i.token);
    this.take(i, ref, to, traceId);
    const principalName = i.user.globalName ?? i.user.username;
    return { ref, to, principalName, delivered: [] };
  }

  /**
   * A server's or DM's turn; undefined where the bot cannot post. Outside a thread the reply goes
   * to the channel itself, and /ask opens a thread for the answer.
   */
  private async inChannel(i: ChatInputCommandInteraction, intent: Intent, traceId: string) {
    const channel = i.channel ?? (await this.o.client.channels.fetch(i.channelId));
    if (!channel?.isSendable()) return undefined;
    const place = placeOf(channel, i.guildId, i.user.id);
    const here = place.ref;
    const ref = place.conversation ? here : undefined;
    if (ref) this.take(i, ref, { ref, context: {} }, traceId);
    const thread = !ref && intent === 'ask' ? await this.askThread(i, here, traceId) : {};
    // The deferred reply becomes the first message of the answer.
    return { ref: here, to: { ref: here, context: { interactionToken: i.token } }, ...thread };
  }
}
