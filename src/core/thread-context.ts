// What a person sees in a thread before they call the bot in: the messages the bot has not read
// yet (all of them on the first mention), with authors and times, and the files posted with them.
// A cursor per session remembers how far it has read, so a follow-up fetches only what is new;
// it moves only once a turn's answer is stored, so a failed turn reads the same messages again.
import { type Ingestor, incomingFile } from '../attachments/ingest.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { QuotedMessage } from '../memory/thread-messages.ts';
import type { InboundMessage, ThreadMessage } from '../model/incoming.ts';
import type { PlatformPort } from '../model/platform-port.ts';
import { sessionKey, sessionOwner, type ThreadRef } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';

export interface CaughtUp {
  /** Other people's messages before the one answered, oldest first. */
  quoted: QuotedMessage[];
  /** The asker's display name, when the platform told it. */
  askerName?: string;
  /** Marks these messages read; called after the turn's history is stored. */
  commit(): Promise<void>;
}

export interface ThreadContextOptions {
  store: Store;
  ingestor?: Ingestor | undefined;
  /** Most messages one read keeps (the newest); bounds time and memory on huge threads. */
  maxMessages: number;
  metrics?: Pick<Metrics, 'threadMessagesRead'> | undefined;
  log: Logger;
}

/** What a turn needs to read its context: where it is, and which message it answers. */
export type ContextRequest = Pick<
  InboundMessage,
  'ref' | 'to' | 'messageId' | 'topLevel' | 'replyChain' | 'viewedChannel' | 'delivered'
>;

function quote(m: ThreadMessage): QuotedMessage {
  return {
    id: m.id,
    authorId: m.authorId,
    ...(m.authorName ? { authorName: m.authorName } : {}),
    at: m.at,
    text: m.text,
  };
}

export class ThreadContext {
  private readonly o: ThreadContextOptions;

  constructor(o: ThreadContextOptions) {
    this.o = o;
  }

  private cursorKey(ref: ThreadRef): string {
    return `thread-read:${sessionKey(ref)}`;
  }

  /** The last message read in the session, if it was read before. */
  async cursor(ref: ThreadRef): Promise<string | undefined> {
    return (await this.o.store.kv.get(this.cursorKey(ref))) as string | undefined;
  }

  /**
   * Forgetting a thread forgets its messages up to `upTo` too: the next mention reads only what is
   * posted after it, instead of reading back what was just forgotten.
   */
  async forget(ref: ThreadRef, upTo: string): Promise<void> {
    await this.o.store.kv.set(this.cursorKey(ref), upTo);
  }

  /**
   * The session's unread messages before `m`, or, for a first mention at a channel's top level,
   * the `channelContext` latest channel messages (or the reply chain it answers).
   */
  async read(
    port: PlatformPort,
    m: ContextRequest,
    channelContext: number,
    log: Logger,
  ): Promise<CaughtUp> {
    const key = this.cursorKey(m.ref);
    const cursor = (await this.o.store.kv.get(key)) as string | undefined;
    let read: ThreadMessage[] = [];
    if (m.delivered) {
      read = m.delivered;
    } else if (m.topLevel && cursor === undefined) {
      if (m.replyChain) read = await m.replyChain();
      else if (channelContext > 0 && port.readChannel)
        read = await port.readChannel(m.to, { before: m.messageId, limit: channelContext });
    } else if (!m.topLevel) {
      read = await this.readThread(port, m, cursor);
    }
    let askerName: string | undefined;
    const quoted: QuotedMessage[] = [];
    const files: ThreadMessage[] = [];
    for (const t of read) {
      if (t.id === m.messageId) {
        askerName = t.authorName;
        continue;
      }
      if (t.fromSelf || !port.isBefore(t.id, m.messageId)) continue;
      // A delivered message is quoted even if older than the cursor: it is what was asked about.
      if (!m.delivered && cursor !== undefined && !port.isBefore(cursor, t.id)) continue;
      if (t.files.length > 0) files.push(t);
      if (t.text.trim() !== '' || t.files.length > 0) quoted.push(quote(withFileNames(t)));
    }
    // The channel beside the conversation comes first: what the person looks at while asking.
    if (m.viewedChannel && channelContext > 0) {
      const viewed = await m.viewedChannel(channelContext);
      const beside = viewed.messages
        .filter((t) => !t.fromSelf && t.text.trim() !== '')
        .map((t) => ({ ...quote(withFileNames(t)), channelId: viewed.channelId }));
      quoted.unshift(...beside);
    }
    this.o.metrics?.threadMessagesRead.inc({ platform: m.ref.platform }, quoted.length);
    await this.ingest(m.ref, files, log);
    const next = cursor === undefined || port.isBefore(cursor, m.messageId) ? m.messageId : cursor;
    return {
      quoted,
      ...(askerName ? { askerName } : {}),
      commit: async () => {
        await this.o.store.kv.set(key, next);
      },
    };
  }

  private async readThread(
    port: PlatformPort,
    m: ContextRequest,
    cursor: string | undefined,
  ): Promise<ThreadMessage[]> {
    const out: ThreadMessage[] = [];
    for await (const t of port.readThread(m.to, cursor ? { after: cursor } : {})) {
      out.push(t);
      if (t.id === m.messageId) break;
      // Keep the newest: a huge thread is read through but only its tail is kept.
      if (out.length > this.o.maxMessages) out.shift();
    }
    return out;
  }

  /** Files posted earlier in the thread belong to the session; the ingestor reads each once. */
  private async ingest(ref: ThreadRef, posted: ThreadMessage[], log: Logger): Promise<void> {
    const ingestor = this.o.ingestor;
    if (!ingestor) return;
    const owner = sessionOwner(ref);
    await Promise.all(
      posted.flatMap((t) =>
        t.files.map((file) =>
          ingestor
            .ingest(owner, incomingFile(file), () => file.download())
            .then((outcome) => {
              if (outcome.status === 'failed')
                log.info(
                  { file: file.id, code: outcome.error.code },
                  'an earlier file in the thread could not be read',
                );
            })
            .catch((err: unknown) => log.warn({ err, file: file.id }, 'earlier file failed')),
        ),
      ),
    );
  }
}

/** A message that carried files says which, so the model knows what it may search. */
function withFileNames(t: ThreadMessage): ThreadMessage {
  if (t.files.length === 0) return t;
  const names = t.files.map((f) => f.name).join(', ');
  return { ...t, text: `${t.text}${t.text ? '\n' : ''}[attached: ${names}]` };
}
