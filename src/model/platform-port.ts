// The platform port: the few primitive operations the core needs from a chat platform. Each
// adapter implements it; everything that must behave the same on every platform (streaming and
// paging an answer, user-visible messages, neutralising mentions, session state) is in src/core.
import type { AnswerFooter } from './answer-extras.ts';
import type { Destination, InboundMessage, QueuedFile, ThreadMessage } from './incoming.ts';
import type { PlatformFormat, RenderedText } from './rendered-text.ts';

export type { AnswerFooter, Destination, PlatformFormat, ThreadMessage };

import type { Platform } from './thread-ref.ts';

export interface MessageLimits {
  /** Longest message, in UTF-16 code units of the platform format (Slack mrkdwn 3,000; Discord 2,000). */
  message: number;
  /** Longest native stream message (Slack markdown 12,000), when the platform streams. */
  stream?: number;
}

export type StatusKind = 'thinking' | 'summarizing';

/**
 * What a status call achieved: `text` the platform shows the words (Slack's assistant status),
 * `indicator` a sign of work without words (Discord's typing), `unsupported` nothing.
 */
export type StatusShown = 'text' | 'indicator' | 'unsupported';

/** A message the platform streams natively (Slack chat.startStream). */
export interface NativeStream {
  readonly messageId: string;
  /** Adds text; false when the platform closed the stream early (the core continues elsewhere). */
  append(text: RenderedText): Promise<boolean>;
  /** Ends the stream; a footer (feedback buttons, sources) goes on the message where the platform can. */
  stop(footer?: AnswerFooter): Promise<void>;
  /**
   * Adds the last text and ends the stream in one request (Slack's stopStream takes text), else
   * as `stop`; false, with nothing sent, when the platform closed the stream early. Optional.
   */
  stopWith?(last: RenderedText, footer?: AnswerFooter): Promise<boolean>;
}

export type Reaction = 'ok' | 'warning';

/**
 * Who reads what is posted at a destination: one person (a DM), or a channel's members (user ids,
 * the bot itself left out). The core checks knowledge evidence against it.
 */
export type Audience = { kind: 'dm' } | { kind: 'channel'; members: string[] };

export interface PlatformPort {
  readonly platform: Platform;
  readonly limits: MessageLimits;
  readonly format: PlatformFormat;
  /** How long a status lasts on the platform; the core renews it before then while it works. */
  readonly statusRenewMs?: number | undefined;
  post(to: Destination, text: RenderedText): Promise<string>;
  edit(to: Destination, messageId: string, text: RenderedText): Promise<void>;
  delete(to: Destination, messageId: string): Promise<void>;
  showStatus(to: Destination, kind: StatusKind, text: RenderedText): Promise<StatusShown>;
  /** Takes a shown status away without posting (a question withdrawn); absent: it lapses. */
  clearStatus?(to: Destination): Promise<void>;
  react(to: Destination, messageId: string, reaction: Reaction): Promise<void>;
  /**
   * How many messages one answer may take at this destination, where the platform caps it (a
   * Discord user install answers through its interaction: the response and five follow-ups).
   * Absent or undefined: no cap.
   */
  maxAnswerMessages?(to: Destination): number | undefined;
  /** Starts a natively streamed message; absent, or null when unavailable: the core posts and edits. */
  startStream?(to: Destination, first: RenderedText): Promise<NativeStream | null>;
  /**
   * Puts an answer's footer on its last message (`messageId`, showing `text`), or on a new message
   * when `messageId` is undefined. Absent: the core posts the sources line as a message.
   */
  finishAnswer?(
    to: Destination,
    messageId: string | undefined,
    text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void>;
  /**
   * The answer's footer is decided and goes on after the turn's history is kept (`finishAnswer`).
   * A port that records a queued job's posts keeps it until then, so that a re-run finding the
   * turn kept (its predecessor died in between) places it. Absent on the platforms' own ports.
   */
  footerDue?(to: Destination, footer: AnswerFooter): Promise<void>;
  /** The thread's messages, oldest first (`after`: only those after that message id). */
  readThread(
    to: Destination,
    opts?: { after?: string; limit?: number },
  ): AsyncIterable<ThreadMessage>;
  /**
   * The channel's latest top-level messages before `before`, oldest first: the context of a
   * mention at a channel's top level. Absent where the platform has no such thing.
   */
  readChannel?(to: Destination, opts: { before: string; limit: number }): Promise<ThreadMessage[]>;
  /** A person's display name, from the platform's cache where it keeps one. */
  displayName?(userId: string): Promise<string | undefined>;
  /** Who can read the destination; absent: unknown, and the core treats every reader as unknown. */
  audience?(to: Destination): Promise<Audience>;
  /**
   * Whether everyone in the project can read the destination (`public`) or only some people
   * (`private`: a private channel, a DM). Sharing a file from a private place with the whole project
   * asks first; absent: treated as private.
   */
  reach?(to: Destination): Promise<'public' | 'private'>;
  /**
   * Whether the platform makes `userId` an admin where `to` is (a Slack workspace's admins and
   * owners, a Discord server's owner and members with Administrator or Manage Server); absent:
   * the platform has no such people (the web chat).
   */
  isAdmin?(to: Destination, userId: string): Promise<boolean>;
  /** Posts a message only `userId` sees (Slack ephemeral, a Discord DM); absent: not possible. */
  postPrivate?(to: Destination, userId: string, text: RenderedText): Promise<void>;
  /** Whether message id `a` was posted before `b` (ids sort by time on both platforms). */
  isBefore(a: string, b: string): boolean;
  /**
   * For a message queued by another process: rebuilds what plain data cannot carry (file
   * downloads with the bot's credentials, the reply chain, opening the thread named ahead) from
   * the platform ids it kept.
   */
  rehydrate?(
    queued: Pick<InboundMessage, 'platformIds' | 'ref'> & { files?: QueuedFile[] },
  ): Pick<InboundMessage, 'files' | 'replyChain' | 'viewedChannel' | 'openThread'>;
  /** A native stream left open by a process that died, to finish it (Slack: by channel and ts). */
  resumeStream?(to: Destination, messageId: string): NativeStream;
}
