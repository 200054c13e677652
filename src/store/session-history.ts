import {
  type BaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from '@langchain/core/messages';
import type { Store } from './store.ts';

interface HistoryRecord {
  messages: StoredMessage[];
  updatedAt: number;
}

/**
 * A session's conversation as LangChain messages. Messages past `maxMessages` move to an archive
 * key instead of being deleted (DESIGN.md §4.4).
 */
export class SessionHistory {
  private readonly store: Store;
  private readonly maxMessages: number;

  constructor(store: Store, maxMessages: number) {
    this.store = store;
    this.maxMessages = maxMessages;
  }

  async load(sessionKey: string): Promise<BaseMessage[]> {
    const rec = (await this.store.kv.get(`history:${sessionKey}`)) as HistoryRecord | undefined;
    return rec ? mapStoredMessagesToChatMessages(rec.messages) : [];
  }

  async exists(sessionKey: string): Promise<boolean> {
    return (await this.store.kv.get(`history:${sessionKey}`)) !== undefined;
  }

  async save(sessionKey: string, messages: BaseMessage[]): Promise<void> {
    let keep = messages;
    if (messages.length > this.maxMessages) {
      const cut = messages.length - this.maxMessages;
      await this.archive(sessionKey, messages.slice(0, cut));
      keep = messages.slice(cut);
    }
    const rec: HistoryRecord = {
      messages: mapChatMessagesToStoredMessages(keep),
      updatedAt: Date.now(),
    };
    await this.store.kv.set(`history:${sessionKey}`, rec);
  }

  async archive(sessionKey: string, messages: BaseMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const key = `archive:${sessionKey}`;
    const old = ((await this.store.kv.get(key)) as StoredMessage[] | undefined) ?? [];
    await this.store.kv.set(key, [...old, ...mapChatMessagesToStoredMessages(messages)]);
  }

  async archived(sessionKey: string): Promise<BaseMessage[]> {
    const stored = (await this.store.kv.get(`archive:${sessionKey}`)) as
      | StoredMessage[]
      | undefined;
    return stored ? mapStoredMessagesToChatMessages(stored) : [];
  }

  /** Forgets the session: its history and its archive. */
  async clear(sessionKey: string): Promise<void> {
    await this.store.kv.delete(`history:${sessionKey}`);
    await this.store.kv.delete(`archive:${sessionKey}`);
  }
}
