import type { ThreadRef } from '../model/thread-ref.ts';

/** A platform-neutral message for the bot (adapters build these). */
export interface IncomingMessage {
  ref: ThreadRef;
  /** The user id who wrote it. */
  principal: string;
  /** The text with the bot's own mention removed. */
  text: string;
  /** Platform id of the message (Slack ts, Discord snowflake). */
  messageId: string;
  receivedAt: number;
  /** Set by the adapter so its own log lines and the turn's share one trace id. */
  traceId: string;
}

/** The answer as it streams; the adapter decides how often the platform is updated. */
export interface AnswerStream {
  append(delta: string): void;
  /** The final text replaces whatever was streamed (it is authoritative). */
  finish(finalText: string): Promise<void>;
  /** Ends the answer with a short message for the user. */
  fail(userMessage: string): Promise<void>;
}

/** What the core needs from a platform to answer in one thread. */
export interface ReplySink {
  /** A visible sign of work; the adapter picks the words. */
  showStatus(kind: 'thinking' | 'summarizing'): Promise<void>;
  beginAnswer(): AnswerStream;
  postMessage(markdown: string): Promise<void>;
  /** The summary the bot will work from, posted when it compresses the thread or is asked to. */
  postSummary(summary: string, reason: 'compressed' | 'requested'): Promise<void>;
  reportError(userMessage: string): Promise<void>;
}

export type TurnOutcome =
  | { status: 'answered'; text: string }
  | { status: 'failed'; code: string; userMessage: string }
  | { status: 'rejected'; reason: 'queue_full' | 'shutting_down' };
