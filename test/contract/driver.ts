// What a conversation scenario needs from a platform, in words a user would use: ask the bot,
// follow up, upload a file, ask for a summary, make it forget, read what it posted. Each platform
// (Slack, Discord, later the web) implements this against its emulator; the scenarios in
// conversation-contract.ts and hostile-names-contract.ts are written once against it.
import type { Handled } from '../../src/core/conversation.ts';
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

/** Who acts: the person who started the thread, or another ordinary member. */
export type Who = 'starter' | 'other';

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
  /** A message in the thread, without naming the bot unless `mention`. */
  followUp(thread: Thread, text: string, opts?: { mention?: boolean; as?: Who }): Promise<Posted>;
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

/** Builds a driver on a freshly started bot; `overrides` go to the bot's config. */
export type MakeDriver = (opts?: {
  overrides?: Record<string, unknown>;
}) => Promise<PlatformDriver>;
