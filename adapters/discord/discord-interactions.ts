// Discord's side of the core's flows: one dispatcher and one renderer. A button or modal whose
// custom_id is an action reference, and the message commands ("Share file with server", "Ask
// threadmind about this"), go to `Conversation.interact`; what comes back is rendered as
// components. Discord drops an interaction
// not answered within 3 seconds, and a modal can only be the first answer: a reply that comes
// quickly is the answer itself (a modal where one is asked for), a slow one is deferred first.
import { randomUUID } from 'node:crypto';
import {
  type AnyThreadChannel,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type MessageContextMenuCommandInteraction,
  MessageFlags,
  type ModalSubmitInteraction,
  PermissionFlagsBits,
  Routes,
} from 'discord.js';
import type { CommandSpec } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { messages } from '../../src/core/messages.ts';
import type { Logger } from '../../src/log/logger.ts';
import type {
  Actor,
  FlowName,
  FormValues,
  InteractionReply,
  InteractionSurface,
  Shown,
} from '../../src/model/interaction.ts';
import { placeAt } from '../../src/model/interaction.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { settlesWithin } from '../../src/util/deadline.ts';
import { threadName } from './commands.ts';
import { type DiscordMessage, errorText, messageOf, modalOf } from './discord-cards.ts';
import { editReply } from './discord-commands.ts';
import {
  interactionPlace,
  placeOf,
  userInstallDestination,
  userInstallPlace,
} from './discord-events.ts';
import type { DiscordPort } from './discord-port.ts';
import { answerUnknown } from './discord-unknown.ts';

/** Discord drops an interaction not acknowledged within 3 s; this leaves room for the answer. */
const ACK_BUDGET_MS = 2000;
const NO_PINGS = { parse: [] as never[] };

type Acting = ButtonInteraction | ModalSubmitInteraction;
type Answerable = Acting | ChatInputCommandInteraction | MessageContextMenuCommandInteraction;

export interface DiscordInteractionsOptions {
  client: Client;
  port: DiscordPort;
  core: Conversation;
  log: Logger;
  threadAutoArchiveMinutes: 60 | 1440 | 4320 | 10080;
}

/** Manage Server makes an admin, Manage Channels a channel's; the bot's own admins are the core's. */
function actorOf(i: Answerable): Actor {
  const has = (p: bigint) => i.memberPermissions?.has(p) ?? false;
  return {
    id: i.user.id,
    ...(i.user.globalName ? { name: i.user.globalName } : {}),
    may: async (right) =>
      right === 'admin'
        ? has(PermissionFlagsBits.ManageGuild)
        : right === 'forgetThread'
          ? mayForget(i)
          : has(PermissionFlagsBits.ManageChannels),
  };
}

/** A thread's owner or a moderator (Manage Threads); in a user install, the person's own. */
function mayForget(i: Answerable): boolean {
  if (userInstallPlace(i)) return true;
  const channel = i.channel;
  if (!channel?.isThread()) return false;
  return (
    channel.ownerId === i.user.id ||
    (i.memberPermissions?.has(PermissionFlagsBits.ManageThreads) ?? false)
  );
}

/**
 * A slash command's options, by name: another way to fill a flow's form (the flow reads them by
 * its fields, as it reads a modal's).
 */
function optionValues(i: ChatInputCommandInteraction): FormValues {
  const values: Record<string, string | number | boolean> = {};
  const visit = (
    options: readonly { name: string; value?: unknown; options?: readonly unknown[] }[],
  ) => {
    for (const o of options) {
      const v = o.value;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        values[o.name] = v;
      if (o.options) visit(o.options as typeof options);
    }
  };
  visit(i.options.data);
  return values;
}

/** A submitted modal's inputs by custom id: a text input's words, a select's picks. */
function modalValues(i: ModalSubmitInteraction): FormValues {
  const values: Record<string, string | readonly string[]> = {};
  for (const [id, f] of i.fields.fields) {
    const field = f as { value?: string; values?: readonly string[] };
    if (typeof field.value === 'string') values[id] = field.value;
    else if (field.values) values[id] = [...field.values];
  }
  return values;
}

export class DiscordInteractions implements InteractionSurface {
  private readonly o: DiscordInteractionsOptions;

  constructor(o: DiscordInteractionsOptions) {
    this.o = o;
  }

  /** A typed request's card or confirmation, with its buttons, in its conversation. */
  async post(
    to: Destination,
    shown: Extract<Shown, { kind: 'card' | 'confirm' }>,
  ): Promise<string | undefined> {
    const m = (await this.o.client.rest.post(Routes.channelMessages(to.ref.sessionId), {
      body: { ...messageOf(shown), allowed_mentions: NO_PINGS },
    })) as { id?: string } | undefined;
    return m?.id;
  }

  /** A card in place of one `post` made: its buttons go unless it has actions of its own. */
  async update(to: Destination, messageId: string, shown: Extract<Shown, { kind: 'card' }>) {
    await this.o.client.rest.patch(Routes.channelMessage(to.ref.sessionId, messageId), {
      body: { ...messageOf(shown), allowed_mentions: NO_PINGS },
    });
  }

  /** A button or a modal whose custom_id is an action reference. */
  async act(i: Acting): Promise<void> {
    const projectId = (await interactionPlace(this.o.client, i))?.projectId;
    // Its channel is gone (or never was the bot's): nothing to act on, but Discord still waits.
    if (!projectId) return answerUnknown(i, this.o.log);
    const channel = i.channel;
    const work = this.o.core.interact({
      kind: 'act',
      ref: i.customId,
      actor: actorOf(i),
      project: { platform: 'discord', projectId },
      ...(channel ? { place: placeAt(placeOf(channel, i.guildId, i.user.id).ref) } : {}),
      ...(i.isModalSubmit() ? { values: modalValues(i) } : {}),
      traceId: randomUUID(),
    });
    await this.answer(i, work);
  }

  /**
   * A message command on a message ("Share file with server", "Ask threadmind about this"): its
   * flow, about that message, answered only to the person. Ask-about's answer goes to a thread
   * started from the message (or the thread it is in); through a user install, where the bot cannot
   * read the channel, to the interaction's own reply, with the message Discord handed over.
   */
  async messageCommand(i: MessageContextMenuCommandInteraction, spec: CommandSpec): Promise<void> {
    if (!('flow' in spec.starts)) return;
    const flow = spec.starts.flow;
    const target = i.targetMessage;
    const asking = flow === 'ask-about';
    const own = asking ? userInstallPlace(i) : undefined;
    let place = own ?? placeOf(target.channel, i.guildId, i.user.id).ref;
    let to: Destination = own ? userInstallDestination(own, i.token) : { ref: place, context: {} };
    // The answer's first words replace the deferred reply: it must exist before the turn writes.
    if (asking) await i.deferReply({ flags: MessageFlags.Ephemeral });
    if (asking && !own) {
      const thread = await this.threadOf(i).catch((err: unknown) => {
        this.o.log.warn({ err }, 'could not start a thread for ask-about');
      });
      if (!thread) return void (await editReply(i, messages.error(messages.threadNotStarted)));
      place = placeOf(thread, i.guildId, i.user.id).ref;
      to = { ref: place, context: {} };
      await editReply(i, messages.answeringIn(`<#${thread.id}>`));
    }
    const work = this.o.core.interact({
      kind: 'start',
      flow,
      actor: actorOf(i),
      place: { ref: place, to },
      message: {
        id: target.id,
        files: [...target.attachments.values()].map((a) => this.o.port.reader.fileRef(a)),
        authorId: target.author.id,
        at: target.createdTimestamp,
        ...(own ? { quoted: this.o.port.reader.deliveredMessage(target) } : {}),
      },
      requestId: i.id,
      traceId: randomUUID(),
      dedupe: [`discord:interaction:${i.id}`],
    });
    await this.answer(i, work);
  }

  /** The thread a message is in, or the one started from it. */
  private async threadOf(i: MessageContextMenuCommandInteraction): Promise<AnyThreadChannel> {
    const target = i.targetMessage;
    if (target.channel.isThread()) return target.channel;
    if (target.thread) return target.thread;
    return target.startThread({
      name: threadName(target.content || 'threadmind'),
      autoArchiveDuration: this.o.threadAutoArchiveMinutes,
    });
  }

  /** A flow begun by a slash command (`/erase-server`), answered only to the person. */
  async command(i: ChatInputCommandInteraction, flow: FlowName): Promise<void> {
    // A user install's own conversation (the bot may not see the channel), else the channel's.
    const ref = await interactionPlace(this.o.client, i);
    if (!ref) return;
    const work = this.o.core.interact({
      kind: 'start',
      flow,
      actor: actorOf(i),
      place: placeAt(ref),
      values: optionValues(i),
      // The command itself: what was posted before it (forget: is not read again).
      message: { id: i.id, files: [] },
      traceId: randomUUID(),
      dedupe: [`discord:interaction:${i.id}`],
    });
    await this.answer(i, work);
  }

  /** Answers within Discord's window: the reply itself when quick, else deferred, then the reply. */
  async answer(i: Answerable, work: Promise<InteractionReply>): Promise<void> {
    if (!(await settlesWithin(work, ACK_BUDGET_MS))) {
      if (i.isButton() || (i.isModalSubmit() && i.isFromMessage())) await i.deferUpdate();
      else await i.deferReply({ flags: MessageFlags.Ephemeral });
    }
    const reply = await work;
    for (const s of reply.show)
      await this.show(i, s).catch((err: unknown) =>
        this.o.log.warn({ err }, 'could not show a discord interaction reply'),
      );
  }

  private async show(i: Answerable, s: Shown): Promise<void> {
    // A form opens at once; a confirmation with a word to type first shows its question with its
    // buttons, and its confirm button opens the modal for the word.
    const asks =
      s.kind === 'form' ||
      (s.kind === 'confirm' && s.confirmation.typedWord !== undefined && i.isButton());
    if (asks && !i.deferred && !i.replied && !i.isModalSubmit()) {
      await i.showModal(modalOf(s.kind === 'form' ? s.form : s.confirmation));
      return;
    }
    // A modal cannot follow a modal (or a deferral): its errors, or its words, instead.
    const errors = s.kind === 'form' || s.kind === 'confirm' ? s.errors : undefined;
    const m: DiscordMessage = errors
      ? { content: errorText(errors), components: [] }
      : messageOf(s);
    const replace = (s.kind === 'notice' || s.kind === 'card') && s.replace === true;
    const onMessage = i.isButton() || (i.isModalSubmit() && i.isFromMessage());
    // A file (an export) is attached to the private reply.
    const files =
      s.kind === 'file'
        ? [{ attachment: Buffer.from(s.file.body, 'utf8'), name: s.file.name }]
        : [];
    const body = { ...m, allowedMentions: { parse: [] }, ...(files.length ? { files } : {}) };
    if (replace && onMessage) {
      if (i.deferred || i.replied) await i.editReply(body);
      else await (i as ButtonInteraction).update(body);
      return;
    }
    const inPlace = (s.kind === 'card' || s.kind === 'confirm') && s.audience === 'place';
    const flags = inPlace ? undefined : MessageFlags.Ephemeral;
    if (!i.deferred && !i.replied) await i.reply({ ...body, ...(flags ? { flags } : {}) });
    else if (i.deferred && !i.replied && !onMessage) await i.editReply(body);
    else await i.followUp({ ...body, ...(flags ? { flags } : {}) });
  }
}
