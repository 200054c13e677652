// The platform port on Discord's REST API. A session is a channel id (a thread, or a DM), so every
// reply goes to `ref.sessionId`; a deferred interaction's first reply edits its original response.
// A user install's answer (`INTERACTION_ONLY`) never touches the channel: the bot is not in it, so
// it is the original response and follow-ups through the interaction's webhook, and reads, typing
// and reactions are skipped.
import { type APIMessage, MessageFlags, type REST, Routes } from 'discord.js';
import { LRUCache } from 'lru-cache';
import { type FileSource, remoteFile } from '../../src/attachments/download.ts';
import type { InboundMessage, QueuedFile } from '../../src/model/incoming.ts';
import type {
  AnswerFooter,
  Audience,
  Destination,
  PlatformPort,
  Reaction,
  StatusShown,
  ThreadMessage,
} from '../../src/model/platform-port.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import { cachedPromise } from '../../src/util/cached-promise.ts';
import { channelReaders, everyoneCanView, isGuildAdmin } from './discord-audience.ts';
import { rows } from './discord-cards.ts';
import { EPHEMERAL, INTERACTION_ONLY } from './discord-events.ts';
import { DISCORD_LIMIT, discordFormat } from './discord-format.ts';
import { DiscordReader } from './discord-reader.ts';
import { openThreadFrom, THREAD_FROM, THREAD_NAME } from './discord-thread-open.ts';

/** Discord shows "typing" for about 10 s. */
const TYPING_RENEW_MS = 8000;
/** What is kept of an interaction (its token is valid for 15 minutes), for a busy bot's worth. */
const INTERACTIONS = { max: 10_000, ttl: 15 * 60_000 };
const NO_PINGS = { parse: [] as never[] };
/**
 * A channel's readers are cached this long (a knowledge answer checks them each time): someone
 * given access within the minute is missed by the check, someone who lost it is still counted.
 */
const READERS_TTL_MS = 60_000;
const REACTIONS: Record<Reaction, string> = { ok: '✅', warning: '⚠️' };

/** Follow-ups Discord accepts for one interaction of an app the server did not add. */
const USER_INSTALL_FOLLOW_UPS = 5;

/** A message the interaction's webhook posted: the original response, or a follow-up. */
interface WebhookMessage {
  token: string;
  /** `@original`, or the follow-up's id. */
  route: string;
}

export interface DiscordPortOptions {
  rest: REST;
  applicationId: string;
  /** The bot's own user id once logged in, to tell its messages apart. */
  selfId: () => string | undefined;
  /** Discord's CDN hosts and the download limits. */
  files: FileSource;
  /** A thread the port opens (a queued top-level mention's) archives after this many idle minutes. */
  threadAutoArchiveMinutes: number;
}

export class DiscordPort implements PlatformPort {
  readonly platform = 'discord' as const;
  readonly limits = { message: DISCORD_LIMIT };
  readonly format = discordFormat;
  readonly statusRenewMs = TYPING_RENEW_MS;
  private readonly o: DiscordPortOptions;
  /** Interactions whose original response already holds a reply. */
  private readonly usedInteractions = new LRUCache<string, true>(INTERACTIONS);
  /** Interaction responses and follow-ups: only the interaction's webhook may edit them. */
  private readonly webhookMessages = new LRUCache<string, WebhookMessage>(INTERACTIONS);
  /** Reading threads, channels, reply chains and attachments (discord-reader.ts). */
  readonly reader: DiscordReader;
  private readonly readers = new LRUCache<string, Promise<string[]>>({
    max: 2000,
    ttl: READERS_TTL_MS,
  });

  constructor(o: DiscordPortOptions) {
    this.o = o;
    this.reader = new DiscordReader(o);
  }

  /**
   * A DM, or an ephemeral answer, is one person; a guild channel (and its threads) the members who
   * can view the channel.
   */
  async audience(to: Destination): Promise<Audience> {
    const { projectId: guild, channelId } = to.ref;
    if (guild.startsWith('dm:') || to.context[EPHEMERAL] === true) return { kind: 'dm' };
    const readers = await cachedPromise(this.readers, `${guild}:${channelId}`, () =>
      channelReaders(this.o.rest, guild, channelId),
    );
    const self = this.o.selfId();
    return { kind: 'channel', members: readers.filter((m) => m !== self) };
  }

  /** A channel every member of the server can view is public; a DM or a restricted channel is not. */
  async reach(to: Destination): Promise<'public' | 'private'> {
    const { projectId: guild, channelId } = to.ref;
    if (guild.startsWith('dm:') || to.context[INTERACTION_ONLY] === true) return 'private';
    return (await everyoneCanView(this.o.rest, guild, channelId)) ? 'public' : 'private';
  }

  /** Not in a server (a DM, a user install): nobody is its admin. */
  async isAdmin(to: Destination, userId: string): Promise<boolean> {
    const guild = to.ref.projectId;
    if (guild.startsWith('dm:') || guild.startsWith('user:')) return false;
    return isGuildAdmin(this.o.rest, guild, userId);
  }

  /** A direct message to the person (Discord has ephemeral replies only for interactions). */
  async postPrivate(_to: Destination, userId: string, text: RenderedText): Promise<void> {
    const dm = (await this.o.rest.post(Routes.userChannels(), {
      body: { recipient_id: userId },
    })) as { id: string };
    await this.o.rest.post(Routes.channelMessages(dm.id), {
      body: { content: text.text, allowed_mentions: NO_PINGS },
    });
  }

  /** Through a user install's interaction: its response and the five follow-ups Discord allows. */
  maxAnswerMessages(to: Destination): number | undefined {
    return to.context[INTERACTION_ONLY] === true ? 1 + USER_INSTALL_FOLLOW_UPS : undefined;
  }

  async post(to: Destination, text: RenderedText): Promise<string> {
    const body = { content: text.text, allowed_mentions: NO_PINGS };
    const token = to.context.interactionToken;
    if (typeof token === 'string' && !this.usedInteractions.has(token)) {
      this.usedInteractions.set(token, true);
      const m = (await this.o.rest.patch(
        Routes.webhookMessage(this.o.applicationId, token, '@original'),
        { body, auth: false },
      )) as APIMessage;
      this.webhookMessages.set(m.id, { token, route: '@original' });
      return m.id;
    }
    return (await this.send(to, body)).id;
  }

  /**
   * A new message: in the channel, or for a user install a follow-up through the interaction
   * (Discord allows such an answer five of them, and keeps its token for 15 minutes).
   */
  private async send(to: Destination, body: Record<string, unknown>): Promise<APIMessage> {
    const token = to.context.interactionToken;
    if (to.context[INTERACTION_ONLY] === true && typeof token === 'string') {
      const flags = to.context[EPHEMERAL] === true ? MessageFlags.Ephemeral : 0;
      const m = (await this.o.rest.post(Routes.webhook(this.o.applicationId, token), {
        body: { ...body, flags },
        auth: false,
      })) as APIMessage;
      this.webhookMessages.set(m.id, { token, route: m.id });
      return m;
    }
    return (await this.o.rest.post(Routes.channelMessages(to.ref.sessionId), {
      body,
    })) as APIMessage;
  }

  /** The route that may change a message: the interaction's webhook for its own responses. */
  private messageRoute(to: Destination, messageId: string) {
    const w = this.webhookMessages.get(messageId);
    return w
      ? { route: Routes.webhookMessage(this.o.applicationId, w.token, w.route), auth: false }
      : { route: Routes.channelMessage(to.ref.sessionId, messageId), auth: true };
  }

  async edit(to: Destination, messageId: string, text: RenderedText): Promise<void> {
    const { route, auth } = this.messageRoute(to, messageId);
    await this.o.rest.patch(route, {
      body: { content: text.text, allowed_mentions: NO_PINGS },
      auth,
    });
  }

  /**
   * 👍/👎 buttons on the answer's last message and the sources line under its text when both fit
   * in one message; otherwise a short message of its own carries them.
   */
  async finishAnswer(
    to: Destination,
    messageId: string | undefined,
    text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void> {
    const components = footer.votes ? rows(footer.votes) : [];
    const sources = footer.sourcesText?.text;
    if (messageId !== undefined && text !== undefined) {
      const content = sources ? `${text.text}\n\n${sources}` : text.text;
      if (content.length <= DISCORD_LIMIT) {
        const { route, auth } = this.messageRoute(to, messageId);
        await this.o.rest.patch(route, {
          body: { content, components, allowed_mentions: NO_PINGS },
          auth,
        });
        return;
      }
    }
    if (!sources && components.length === 0) return;
    await this.send(to, { content: sources ?? '', components, allowed_mentions: NO_PINGS });
  }

  async delete(to: Destination, messageId: string): Promise<void> {
    const { route, auth } = this.messageRoute(to, messageId);
    await this.o.rest.delete(route, { auth });
  }

  async showStatus(to: Destination): Promise<StatusShown> {
    // A user install's deferred response already shows "… is thinking"; it may not type there.
    if (to.context[INTERACTION_ONLY] === true) return 'indicator';
    await this.o.rest.post(Routes.channelTyping(to.ref.sessionId));
    return 'indicator';
  }

  async react(to: Destination, messageId: string, reaction: Reaction): Promise<void> {
    // Only members react; a file's failure is still told in words.
    if (to.context[INTERACTION_ONLY] === true) return;
    await this.o.rest.put(
      Routes.channelMessageOwnReaction(
        to.ref.sessionId,
        messageId,
        encodeURIComponent(REACTIONS[reaction]),
      ),
    );
  }

  /** The channel's messages after `after` (or from the start), oldest first, 100 a request. */
  readThread(
    to: Destination,
    opts: { after?: string; limit?: number } = {},
  ): AsyncIterable<ThreadMessage> {
    return this.reader.readThread(to, opts);
  }

  isBefore(a: string, b: string): boolean {
    return BigInt(a) < BigInt(b);
  }

  /** The channel's messages before `before`, oldest first (Discord answers newest first). */
  readChannel(to: Destination, opts: { before: string; limit: number }): Promise<ThreadMessage[]> {
    return this.reader.readChannel(to, opts);
  }

  rehydrate(
    queued: Pick<InboundMessage, 'platformIds' | 'ref'> & { files?: QueuedFile[] },
  ): Pick<InboundMessage, 'files' | 'replyChain' | 'openThread'> {
    const ids = queued.platformIds;
    const channelId = ids?.replyChannelId;
    const messageId = ids?.replyMessageId;
    const from = ids?.[THREAD_FROM];
    const open = { rest: this.o.rest, autoArchiveMinutes: this.o.threadAutoArchiveMinutes };
    return {
      ...(from
        ? { openThread: () => openThreadFrom(open, queued.ref, from, ids?.[THREAD_NAME] ?? '…') }
        : {}),
      ...(queued.files
        ? { files: queued.files.map((f) => remoteFile(this.o.files, f, f.url)) }
        : {}),
      ...(channelId && messageId
        ? { replyChain: () => this.reader.replyChain(channelId, messageId) }
        : {}),
    };
  }
}
