// How the web chat's transcript sits in the bot's store: one record per thread and per message, a
// small index of thread ids and each thread's order of message ids. A change writes the record it
// touches (a streamed answer: when it settles), never a whole thread or the whole list of threads.
// Records of the older layout (all threads in one record, a thread's messages in one record) are
// read once and written again in this layout.
import { LatestWrites } from '../../src/util/latest-writes.ts';
import type { WebMessage, WebThread } from './web-messages.ts';

/** The part of the bot's key-value store the transcript needs (keyv's). */
export interface TranscriptStore {
  get(key: string): Promise<unknown>;
  getMany(keys: string[]): Promise<unknown[]>;
  set(key: string, value: unknown): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

export class TranscriptRecords {
  private readonly store: TranscriptStore;
  private readonly prefix: string;
  private readonly onWriteError: (err: unknown) => void;
  /** A record's writes, one at a time, of its latest state (src/util/latest-writes.ts). */
  private readonly writes: LatestWrites;

  /** `prefix`: the platform and project every key starts with (`web:local`). */
  constructor(store: TranscriptStore, prefix: string, onWriteError: (err: unknown) => void) {
    this.store = store;
    this.prefix = prefix;
    this.onWriteError = onWriteError;
    this.writes = new LatestWrites(store);
  }

  private key(kind: string, ...ids: string[]): string {
    return [this.prefix, kind, ...ids].join(':');
  }

  /** Every thread, in the order they were made. */
  async loadThreads(): Promise<WebThread[]> {
    const ids = await this.store.get(this.key('thread-index'));
    if (Array.isArray(ids)) return this.many<WebThread>(ids.map((id) => this.key('thread', id)));
    const legacyKey = this.key('threads');
    const legacy = await this.store.get(legacyKey);
    if (!Array.isArray(legacy)) return [];
    const threads = legacy as WebThread[];
    await Promise.all(threads.map((t) => this.saveThread(t)));
    await this.saveIndex(() => threads.map((t) => t.id));
    await this.store.delete(legacyKey);
    return threads;
  }

  /** A thread's messages, oldest first. */
  async loadMessages(threadId: string): Promise<WebMessage[]> {
    const ids = await this.store.get(this.key('order', threadId));
    if (Array.isArray(ids))
      return this.many<WebMessage>(ids.map((id) => this.key('message', threadId, id)));
    const legacyKey = this.key('transcript', threadId);
    const legacy = await this.store.get(legacyKey);
    if (!Array.isArray(legacy)) return [];
    const list = legacy as WebMessage[];
    await Promise.all(
      list.map((m) => this.writes.write(this.key('message', threadId, m.id), () => m)),
    );
    await this.saveOrder(threadId, () => list.map((m) => m.id));
    await this.store.delete(legacyKey);
    return list;
  }

  /** Records that are there (a message whose record was never written is left out). */
  private async many<T>(keys: string[]): Promise<T[]> {
    if (keys.length === 0) return [];
    const values = await this.store.getMany(keys);
    return values.filter((v): v is T => typeof v === 'object' && v !== null);
  }

  saveThread(t: WebThread): Promise<void> {
    return this.writes.write(this.key('thread', t.id), () => t);
  }

  /** The thread ids, read when the write happens (so changes meanwhile go out in one write). */
  saveIndex(ids: () => string[]): Promise<void> {
    return this.writes.write(this.key('thread-index'), ids);
  }

  saveOrder(threadId: string, ids: () => string[]): Promise<void> {
    return this.writes.write(this.key('order', threadId), ids);
  }

  /** Stores the message as it is when the write happens; `gone` deletes its record. */
  saveMessage(threadId: string, m: WebMessage, gone = false): void {
    this.writes
      .write(this.key('message', threadId, m.id), () => (gone ? undefined : m))
      .catch(this.onWriteError);
  }

  /** Resolves once every change so far is in the store. */
  flush(): Promise<void> {
    return this.writes.flush();
  }
}
