// What a conversation scenario needs from a platform, in words a user would use: ask the bot,
// follow up, upload a file, ask for a summary, make it forget, read what it posted. Each platform
// (Slack, Discord, later the web) implements this against its emulator; the scenarios in
// conversation-contract.ts and hostile-names-contract.ts are written once against it.
import type { Handled } from '../../src/model/handled.ts';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';

/** Where the bot answers: a thread (or, for a file at a channel's top level, wherever its outcome goes). Opaque. */
export interface Thread {
  readonly id: string;
}

/** A message a person posted. */
export interface Posted {
  thread: Thread;
  /** The platform's id of the person's message (Slack ts, Discord snowflake or interaction id). */
  messageId: string;
}

export interface Attachment {
  name: string;
  bytes: Uint8Array;
}

export interface BotMessage {
  /** As the person sees it now (after edits and appends). */
  text: string;
  /** The longest text this kind of message may hold on the platform. */
  limit: number;
}

/** Who acts: the person who started the thread, another member, or a third one. */
export type Who = 'starter' | 'other' | 'third';

/** A line of a discussion people have before they call the bot in. */
export interface Line {
  as: Who;
  text: string;
  files?: Attachment[];
}

/** Channel settings as a test changes them (a subset of what the forms offer). */
export interface SettingsChange {
  replyMode?: 'mention' | 'thread' | 'all';
  instructions?: string;
  model?: string;
}

export type ReactionKind = 'ok' | 'warning' | 'other';

/** Marks a point in the recorded traffic; `pings(since)` looks only after it. */
export type Mark = unknown;

export interface PlatformDriver {
  readonly name: string;
  /** The model server the bot talks to. */
  readonly llm: OpenAIEmulator;
  /** The platform's longest message of any kind the bot posts (a long answer must exceed it). */
  readonly longestMessage: number;

  /** Mentions the bot at a channel's top level with `text`; resolves once its thread exists. */
  mention(text: string, opts?: { files?: Attachment[] }): Promise<Posted>;
  /**
   * A message in the thread, without naming the bot unless `mention`; `naming` puts another
   * person's mention in front of the text.
   */
  followUp(
    thread: Thread,
    text: string,
    opts?: { mention?: boolean; as?: Who; naming?: Who },
  ): Promise<Posted>;
  /** The platform delivers that message to the bot again (its own retry or replay). */
  redeliver(messageId: string): Promise<void>;
  /** Posts a file (no text) in the thread, or at a channel's top level. */
  uploadFile(where: Thread | 'channel', file: Attachment): Promise<Posted>;
  /** Asks the bot to share a file with everyone in the project (workspace or server). */
  shareFile(file: Attachment): Promise<Posted>;
  /** Asks for a summary of the thread, the platform's way. */
  askSummary(thread: Thread): Promise<Posted>;
  /** The thread's starter asks the bot to forget it, the platform's way. */
  forget(thread: Thread): Promise<Posted>;

  /**
   * What the person who started threads was told privately, so far, oldest first (Slack: ephemeral
   * messages; Discord: direct messages; the web chat, one person's: its thread's messages).
   */
  privateMessages(thread: Thread): string[];
  /** Questions waiting for a turn slot now (their thread open, their place shown). */
  turnsWaiting(): number;
  /** Resolves once the model usage booked so far is written (budgets read it). */
  usageBooked(): Promise<void>;

  /** Resolves once every delivery of the message (and any file it carried) was fully handled. */
  handled(messageId: string, deliveries?: number): Promise<Handled[]>;

  /** What the bot shows in the thread now, oldest first. */
  botMessages(thread: Thread): BotMessage[];
  /** Bot messages in the thread's channel outside the thread, posted since it started. */
  strayBotMessages(thread: Thread): string[];
  reactions(messageId: string): ReactionKind[];

  mark(): Mark;
  /** Every request the bot made (since `mark`) that could ping someone, described. */
  pings(since?: Mark): string[];

  /** Native streaming on or off, where the platform has it (so both ways of answering are seen). */
  setNativeStreaming?(on: boolean): void;
  /** The platform's own ask command (Discord's /ask), where it has one. */
  askCommand?(text: string): Promise<Posted>;
  /** The platform's own file list command (Discord's /files), where it has one. */
  listFiles?(thread: Thread): Promise<Posted>;
  /**
   * Where the platform itself refuses an empty message (the web chat's API), sends one and returns
   * the refusal (status and words) instead of mentioning the bot with nothing.
   */
  emptyMessage?(): Promise<string>;

  close(): Promise<void>;
}

/**
 * A platform where people talk among themselves and the bot is called in: several people, edits
 * and deletions, channel settings (Slack and Discord; the web chat is one person's).
 */
export interface ThreadDriver extends PlatformDriver {
  /** People talk in a new thread, without the bot; the first line starts it. */
  discussion(lines: Line[]): Promise<{ thread: Thread; posted: Posted[] }>;
  /** How the platform shows this person's name. */
  nameOf(who: Who): string;
  /** The person edits their message; resolves once the bot has taken the change in. */
  editMessage(p: Posted, text: string): Promise<void>;
  /** The person deletes their message; resolves once the bot has taken the deletion in. */
  deleteMessage(p: Posted): Promise<void>;
  /** Platform API calls the bot has made to read messages and names, so far. */
  readCalls(): number;
  /** What the bot stores about the thread (history and archive), as text. */
  storedHistory(thread: Thread): Promise<string>;
  /**
   * Changes the settings of the thread's channel, the platform's way (Slack: /threadmind and its
   * form; Discord: /settings set with options), as someone with the right or an ordinary member. Resolves with
   * what the person was told privately.
   */
  changeSettings(thread: Thread, as: 'admin' | 'member', change: SettingsChange): Promise<string>;
}

/** Builds a driver on a freshly started bot; `overrides` go to the bot's config. */
export type MakeDriver<D extends PlatformDriver = PlatformDriver> = (opts?: {
  overrides?: Record<string, unknown>;
  /** What the model server lists at /v1/models (a channel may pick one). */
  models?: { id: string; max_model_len: number }[];
}) => Promise<D>;
