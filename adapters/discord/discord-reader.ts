// Reading Discord: a thread or DM (with the message a thread was started from), a channel's
// latest messages, reply chains, and the messages an interaction carried, as the core reads them.
import {
  type APIMessage,
  type Attachment,
  type Message,
  MessageReferenceType,
  type REST,
  Routes,
} from 'discord.js';
import { type FileSource, remoteFile } from '../../src/attachments/download.ts';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { FileRef } from '../../src/model/incoming.ts';
import type { Destination, ThreadMessage } from '../../src/model/platform-port.ts';
import { INTERACTION_ONLY } from './discord-events.ts';

/** How far up a reply chain a mention reads. */
const REPLY_CHAIN_DEPTH = 10;

export type AttachmentLike = Pick<Attachment, 'id' | 'name' | 'size' | 'url'>;

/** What a message says; a forwarded message's words are in its snapshot, not its content. */
export function messageText(m: Pick<APIMessage, 'content' | 'message_snapshots'>): string {
  const forwarded = (m.message_snapshots ?? [])
    .map((s) => s.message.content)
    .filter((t) => t !== '')
    .map((t) => `${surfaceTexts.forwarded}\n${t}`);
  return [m.content, ...forwarded].filter((t) => t !== '').join('\n');
}

export class DiscordReader {
  private readonly o: { rest: REST; selfId: () => string | undefined; files: FileSource };

  constructor(o: { rest: REST; selfId: () => string | undefined; files: FileSource }) {
    this.o = o;
  }

  /** A FileRef for an attachment; CDN URLs are signed and expire, so download soon. */
  fileRef(a: AttachmentLike): FileRef {
    return remoteFile(this.o.files, a, a.url);
  }

  /** The channel's messages after `after` (or from the start), oldest first, 100 a request. */
  async *readThread(
    to: Destination,
    opts: { after?: string; limit?: number } = {},
  ): AsyncIterable<ThreadMessage> {
    // A user install cannot read the channel; what it may know comes with the interaction.
    if (to.context[INTERACTION_ONLY] === true) return;
    let after = opts.after ?? '0';
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    // A thread started from a message begins with it, though Discord keeps that message in the
    // parent channel, under the thread's id.
    if (opts.after === undefined && left > 0 && to.ref.channelId !== to.ref.sessionId) {
      const starter = (await this.o.rest
        .get(Routes.channelMessage(to.ref.channelId, to.ref.sessionId))
        .catch(() => undefined)) as APIMessage | undefined;
      if (starter) {
        left--;
        yield this.threadMessage(starter);
      }
    }
    for (;;) {
      const page = await this.page(to.ref.sessionId, { after, limit: left });
      for (const m of page) {
        if (left <= 0) return;
        left--;
        yield this.threadMessage(m);
      }
      const last = page.at(-1);
      if (!last || page.length < 100 || left <= 0) return;
      after = last.id;
    }
  }

  /** The channel's messages before `before`, oldest first (Discord answers newest first). */
  async readChannel(
    to: Destination,
    opts: { before: string; limit: number },
  ): Promise<ThreadMessage[]> {
    if (to.context[INTERACTION_ONLY] === true) return [];
    const page = await this.page(to.ref.channelId, { before: opts.before, limit: opts.limit });
    return page.map((m) => this.threadMessage(m));
  }

  /** Up to 100 of a channel's messages, oldest first: Discord promises no order; snowflakes sort by time. */
  private async page(
    channelId: string,
    q: { after: string; limit: number } | { before: string; limit: number },
  ): Promise<APIMessage[]> {
    const query = new URLSearchParams({ ...q, limit: String(Math.min(100, q.limit)) });
    const page = (await this.o.rest.get(Routes.channelMessages(channelId), {
      query,
    })) as APIMessage[];
    return page.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  /** A message as the reader sees it (also for reply chains the adapter reads). */
  threadMessage(m: APIMessage): ThreadMessage {
    // A command's reply (/ask's "… asked:") stands for the person who ran the command.
    const author = m.interaction_metadata?.user ?? m.author;
    return {
      id: m.id,
      authorId: author.id,
      authorName: author.global_name ?? author.username,
      isBot: m.author.bot === true,
      fromSelf: m.author.id === this.o.selfId() && m.interaction_metadata === undefined,
      text: messageText(m),
      at: Date.parse(m.timestamp),
      files: m.attachments.map((a) =>
        this.fileRef({ id: a.id, name: a.filename, size: a.size, url: a.url }),
      ),
    };
  }

  /**
   * A message an interaction carried (a message command's target, resolved by Discord), quoted
   * even when the bot wrote it: it is what was asked about.
   */
  deliveredMessage(m: Message): ThreadMessage {
    return {
      id: m.id,
      authorId: m.author.id,
      authorName: m.author.globalName ?? m.author.username,
      isBot: m.author.bot,
      fromSelf: false,
      text: messageText({
        content: m.content,
        message_snapshots: m.messageSnapshots.map((s) => ({ message: { content: s.content } })),
      } as Pick<APIMessage, 'content' | 'message_snapshots'>),
      at: m.createdTimestamp,
      files: [...m.attachments.values()].map((a) => this.fileRef(a)),
    };
  }

  /** The messages a reply answers, oldest first, up to a few levels up. */
  async replyChain(channelId: string, messageId: string): Promise<ThreadMessage[]> {
    const chain: ThreadMessage[] = [];
    let next: { channelId: string; messageId: string } | undefined = { channelId, messageId };
    while (next && chain.length < REPLY_CHAIN_DEPTH) {
      const m = await this.fetchMessage(next.channelId, next.messageId);
      if (!m) break;
      chain.unshift(this.threadMessage(m));
      const ref = m.message_reference;
      next =
        ref?.message_id &&
        (ref.type ?? MessageReferenceType.Default) === MessageReferenceType.Default
          ? { channelId: ref.channel_id ?? next.channelId, messageId: ref.message_id }
          : undefined;
    }
    return chain;
  }

  /** One message by id, or undefined when it is gone or unreadable. */
  async fetchMessage(channelId: string, messageId: string): Promise<APIMessage | undefined> {
    return (await this.o.rest
      .get(Routes.channelMessage(channelId, messageId))
      .catch(() => undefined)) as APIMessage | undefined;
  }
}
