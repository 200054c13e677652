import type { ThreadRef } from './thread-ref.ts';

/**
 * Where a reply goes: the conversation plus JSON-serialisable platform details the port needs to
 * post there (Slack: the recipient for streaming; Discord: a deferred interaction's token).
 */
export interface Destination {
  ref: ThreadRef;
  context: Readonly<Record<string, string | boolean>>;
}

/** A file a person posted, with the platform's way of fetching its bytes bound in. */
export interface FileRef {
  id: string;
  name: string;
  /** Declared size, when the platform tells it: a huge file is refused before downloading. */
  size?: number;
  /** Fetches the bytes (with the bot's credentials, from the platform's hosts only). */
  download(): Promise<Uint8Array>;
  /** Where `download` fetches from: lets a queued message rebuild it in another process. */
  url?: string;
  /** Where a person opens it in the platform (an http(s) address), shown with answer sources. */
  link?: string;
}

/** A `FileRef` as a queued message carries it (plain data; `PlatformPort.rehydrate` rebuilds it). */
export interface QueuedFile {
  id: string;
  name: string;
  size?: number;
  url?: string;
  link?: string;
}

/**
 * How a message reached the bot. `mention`, `direct` and `command` are questions; `ambient` is a
 * message in a thread that did not name the bot, answered only where the bot takes part.
 */
export type Addressed = 'mention' | 'direct' | 'command' | 'ambient';

/** A platform-neutral message for the bot, built by an adapter. */
export interface IncomingMessage {
  ref: ThreadRef;
  /** The user id who wrote it. */
  principal: string;
  /** Their display name, when the event carries it (Discord does; Slack does not). */
  principalName?: string;
  /** The text with the bot's own mention removed. */
  text: string;
  /** Platform id of the message (Slack ts, Discord snowflake). */
  messageId: string;
  receivedAt: number;
  /** Set by the adapter so its own log lines and the turn's share one trace id. */
  traceId: string;
  /**
   * A queued job's run: the lease it holds and its generation (the fencing token), and the marker
   * that makes its history write happen once. The turn's history write is refused when stale.
   */
  fence?: RunFence;
}

/** See `IncomingMessage.fence` (the store's `WriteGuard`). */
export interface RunFence {
  lease: string;
  token: number;
  once?: string;
}

/** What a message asks for. Commands name it; for a mention the core reads it from the text. */
export type Intent = 'ask' | 'summarize' | 'forget' | 'files' | 'share';

/** What an adapter hands the core for one delivery of a person's message. */
export interface InboundMessage extends IncomingMessage {
  /** Where answers go. `ref` above names the session; `to.ref` is usually the same. */
  to: Destination;
  addressed: Addressed;
  /**
   * Keys naming this delivery (event id, message id): if any is already claimed, it is a repeat
   * and is dropped, so every message gets exactly one answer.
   */
  dedupe: string[];
  /**
   * The platform sends this delivery again because it saw no acknowledgement of an earlier one
   * (Slack's X-Slack-Retry-Num): a repeat whose first copy is not queued yet is `deferred`.
   */
  redelivered?: boolean;
  /**
   * Runs once the message is known to be new and addressed, before any answer: lets an adapter
   * open the thread the answer goes to (Discord starts one from a top-level mention).
   */
  openThread?: () => Promise<{ ref: ThreadRef; to: Destination }>;
  /**
   * The thread `openThread` opens, where the platform names it before it exists (Discord: a
   * thread started from a message takes the message's id). A gateway queues the message for that
   * thread without opening it; the worker opens it (`PlatformPort.rehydrate`'s `openThread`).
   */
  threadAhead?: { ref: ThreadRef; to: Destination };
  intent?: Intent;
  /** Files attached to this message (shared on request; otherwise see `receiveFiles`). */
  files?: FileRef[];
  /** At a channel's top level (not in a thread or a DM): the channel's recent messages are its context. */
  topLevel?: boolean;
  /** The message names other people and not the bot: a follow-up meant for them. */
  mentionsOthers?: boolean;
  /** The messages this one replies to, oldest first (Discord reply chains): its context instead of the channel's. */
  replyChain?: () => Promise<ThreadMessage[]>;
  /**
   * The channel the person is looking at beside this conversation (Slack's agent view): its
   * latest messages (at most `limit`), quoted with the thread's. The adapter decides whether the
   * bot may read it (both must be members) and tells the person itself when not.
   */
  viewedChannel?: (limit: number) => Promise<ViewedChannel>;
  /**
   * Where the bot cannot read the conversation (a Discord user install, which only answers the
   * interaction): the messages the platform handed over with this one, oldest first (the message
   * "Ask threadmind about this" was used on), read instead of the thread — quoted like thread
   * messages, their files taken into the session. An empty list: there is nothing to read.
   */
  delivered?: ThreadMessage[];
  /**
   * Platform ids from which `PlatformPort.rehydrate` rebuilds `replyChain` when the message is
   * run by another process (Discord: the replied-to message's channel and id).
   */
  platformIds?: Readonly<Record<string, string>>;
  /**
   * Split roles: this queued message only brings `files` to be read, into the session (`session`)
   * or the channel (`channel`); the worker that takes it downloads and reads them.
   */
  ingestFiles?: 'session' | 'channel';
}

/** What `viewedChannel` read: the channel's id and its messages, oldest first (none when refused). */
export interface ViewedChannel {
  channelId: string;
  messages: ThreadMessage[];
}

/** One message of a thread or channel, as a port reads it. */
export interface ThreadMessage {
  id: string;
  authorId: string;
  /** The author's display name, when the platform tells it (Slack: users.info, cached). */
  authorName?: string;
  isBot: boolean;
  /** Written by this bot: its own replies are already in the session's history. */
  fromSelf: boolean;
  text: string;
  /** Epoch milliseconds. */
  at: number;
  files: FileRef[];
}

/** A message in a conversation the bot follows was edited (text) or deleted (text undefined). */
export interface MessageChange {
  ref: ThreadRef;
  messageId: string;
  /** The new text; undefined: the message was deleted. */
  text?: string;
  traceId: string;
}

/** A file as plain data (a queued message, a pending share): `PlatformPort.rehydrate` rebuilds it. */
export function queuedFile(f: FileRef): QueuedFile {
  return {
    id: f.id,
    name: f.name,
    ...(f.size === undefined ? {} : { size: f.size }),
    ...(f.url === undefined ? {} : { url: f.url }),
    ...(f.link === undefined ? {} : { link: f.link }),
  };
}

/** The thread a message opened before it was queued (Discord: the thread started from a mention). */
export type OpenedThread = { ref: ThreadRef; to: Destination };

/** Split roles: where an ingress or gateway hands a new, addressed message (the turn queue). */
export type Handoff = (m: InboundMessage, opened: OpenedThread | undefined) => Promise<void>;

/** Files posted with a message, for the owner named by where they were posted. */
export interface InboundFiles {
  ref: ThreadRef;
  to: Destination;
  /** `session` inside a thread, `channel` at a channel's top level. */
  where: 'session' | 'channel';
  /** The message that carried them (outcome reactions go there). */
  messageId: string;
  /** The message's text: a request to share the files is handled as a question instead. */
  text: string;
  files: FileRef[];
  traceId: string;
}
