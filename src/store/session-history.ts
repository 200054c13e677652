import {
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  type StoredMessage,
} from '@langchain/core/messages';
import type { Logger } from '../log/logger.ts';
import type { WriteGuard, WriteOutcome } from './lease-backend.ts';
import { normalizeMessages, readStoredMessages, type SkippedRecord } from './normalize-history.ts';
import type { Store } from './store.ts';

interface HistoryRecord {
  messages: StoredMessage[];
  updatedAt: number;
}

export interface SessionHistoryOptions {
  /** Where an unreadable stored record is reported; without one it becomes a process warning. */
  log?: Pick<Logger, 'warn'>;
}

/**
 * A session's conversation as LangChain messages. Messages past `maxMessages` move to an archive
 * key instead of being deleted (ARCHITECTURE.md, "Invariants"). Messages are normalised before they are stored,
 * and a record that still cannot be read is skipped on load: one odd reply must not fail every
 * later turn.
 */
export class SessionHistory {
  private readonly store: Store;
  private readonly maxMessages: number;
  private readonly log: Pick<Logger, 'warn'> | undefined;

  constructor(store: Store, maxMessages: number, options: SessionHistoryOptions = {}) {
    this.store = store;
    this.maxMessages = maxMessages;
    this.log = options.log;
  }

  async load(sessionKey: string): Promise<BaseMessage[]> {
    const key = `history:${sessionKey}`;
    const rec = await this.store.kv.get(key);
    if (rec === undefined || rec === null) return [];
    return this.read(key, (rec as Partial<HistoryRecord>).messages);
  }

  async exists(sessionKey: string): Promise<boolean> {
    return (await this.store.kv.get(`history:${sessionKey}`)) !== undefined;
  }

  /**
   * Saves the session's messages. With a `guard` (a turn's fencing token) history and archive are
   * written in one step, only while the token is current and, with `once`, only the first time.
   */
  async save(
    sessionKey: string,
    messages: BaseMessage[],
    guard?: WriteGuard,
  ): Promise<WriteOutcome> {
    let keep = normalizeMessages(messages);
    let archived: [string, unknown] | undefined;
    if (keep.length > this.maxMessages) {
      const cut = keep.length - this.maxMessages;
      archived = await this.extendedArchive(sessionKey, keep.slice(0, cut));
      keep = keep.slice(cut);
    }
    const rec: HistoryRecord = {
      messages: mapChatMessagesToStoredMessages(keep),
      updatedAt: Date.now(),
    };
    const history: [string, unknown] = [`history:${sessionKey}`, rec];
    if (guard)
      return this.store.leases.writeFenced(archived ? [archived, history] : [history], guard);
    if (archived) await this.store.kv.set(...archived);
    await this.store.kv.set(...history);
    return 'written';
  }

  /**
   * Compression's write: `archived` moves to the archive and `messages` become the history, in one
   * step; with a `guard` (a fencing token, no `once`: compression may happen more than once per
   * turn) only while the token is current.
   */
  async compress(
    sessionKey: string,
    archived: BaseMessage[],
    messages: BaseMessage[],
    guard?: WriteGuard,
  ): Promise<WriteOutcome> {
    if (!guard) {
      await this.archive(sessionKey, archived);
      return this.save(sessionKey, messages);
    }
    let keep = normalizeMessages(messages);
    let moved = archived;
    if (keep.length > this.maxMessages) {
      const cut = keep.length - this.maxMessages;
      moved = [...archived, ...keep.slice(0, cut)];
      keep = keep.slice(cut);
    }
    const entry = await this.extendedArchive(sessionKey, moved);
    const rec: HistoryRecord = {
      messages: mapChatMessagesToStoredMessages(keep),
      updatedAt: Date.now(),
    };
    const history: [string, unknown] = [`history:${sessionKey}`, rec];
    return this.store.leases.writeFenced(entry ? [entry, history] : [history], guard);
  }

  async archive(sessionKey: string, messages: BaseMessage[]): Promise<void> {
    const entry = await this.extendedArchive(sessionKey, messages);
    if (entry) await this.store.kv.set(...entry);
  }

  /** The archive key and its value with `messages` added (undefined when there are none). */
  private async extendedArchive(
    sessionKey: string,
    messages: BaseMessage[],
  ): Promise<[string, unknown] | undefined> {
    if (messages.length === 0) return undefined;
    const key = `archive:${sessionKey}`;
    const stored = await this.store.kv.get(key);
    // A damaged archive is not extended in place: its readable part is kept.
    const old = Array.isArray(stored)
      ? stored
      : stored === undefined
        ? []
        : mapChatMessagesToStoredMessages(this.read(key, stored));
    const added = mapChatMessagesToStoredMessages(normalizeMessages(messages));
    return [key, [...old, ...added]];
  }

  /** Rewrites the archive (an edit or a deletion in the thread reaches archived turns too). */
  async replaceArchive(sessionKey: string, messages: BaseMessage[]): Promise<void> {
    await this.store.kv.set(
      `archive:${sessionKey}`,
      mapChatMessagesToStoredMessages(normalizeMessages(messages)),
    );
  }

  async archived(sessionKey: string): Promise<BaseMessage[]> {
    const key = `archive:${sessionKey}`;
    const stored = await this.store.kv.get(key);
    return stored === undefined || stored === null ? [] : this.read(key, stored);
  }

  /** Forgets the session: its history and its archive. */
  async clear(sessionKey: string): Promise<void> {
    await this.store.kv.delete(`history:${sessionKey}`);
    await this.store.kv.delete(`archive:${sessionKey}`);
  }

  private read(key: string, records: unknown): BaseMessage[] {
    return readStoredMessages(records, (skipped) => this.skipped(key, skipped));
  }

  private skipped(key: string, s: SkippedRecord): void {
    const msg = 'skipped an unreadable stored history record';
    if (this.log) {
      this.log.warn({ key, index: s.index, type: s.type, error: s.error }, msg);
    } else {
      process.emitWarning(`${msg} (${key} #${s.index}, type ${s.type}): ${s.error}`, {
        code: 'THREADMIND_HISTORY_SKIPPED',
      });
    }
  }
}
