// How the web chat's transcript sits in the bot's store: one record per thread and per message, an
// index of thread ids in pages of INDEX_PAGE and each thread's order of message ids. A change writes
// the record it touches (a streamed answer: when it settles, a new thread: its index page), never a
// whole thread or the whole list of threads. Records of older layouts (all threads in one record, a
// thread's messages in one record, the thread ids in one record) are read once and written again
// in this layout.
import { LatestWrites } from '../../src/util/latest-writes.ts';
import type { WebMessage, WebThread } from './web-messages.ts';

/** The part of the bot's key-value store the transcript needs (keyv's). */
export interface TranscriptStore {
  get(key: string): Promise<unknown>;
  getMany(keys: string[]): Promise<unknown[]>;
  set(key: string, value: unknown): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/**
 * Thread ids per index page: a new thread rewrites its page, not every id (one record of them all
 * was ~2 ms of the bot's CPU per new thread at 1,500 threads).
 */
export const INDEX_PAGE = 256;

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
    const pages = await this.store.get(this.key('thread-pages'));
    if (typeof pages === 'number') {
      const keys = Array.from({ length: pages }, (_, n) => this.key('thread-index', String(n)));
      const ids = (await this.store.getMany(keys)).flatMap((page) =>
        Array.isArray(page) ? page : [],
      );
      return this.many<WebThread>(ids.map((id) => this.key('thread', id)));
    }
    return this.loadOlderThreads();
  }

  /** Threads kept with every id in one index record, or every thread in one record. */
  private async loadOlderThreads(): Promise<WebThread[]> {
    const indexKey = this.key('thread-index');
    const ids = await this.store.get(indexKey);
    let threads: WebThread[];
    let legacyKey = indexKey;
    if (Array.isArray(ids))
      threads = await this.many<WebThread>(ids.map((id) => this.key('thread', id)));
    else {
      legacyKey = this.key('threads');
      const legacy = await this.store.get(legacyKey);
      if (!Array.isArray(legacy)) return [];
      threads = legacy as WebThread[];
      await Promise.all(threads.map((t) => this.saveThread(t)));
    }
    const pages = Math.ceil(threads.length / INDEX_PAGE);
    await Promise.all(
      Array.from({ length: pages }, (_, n) => this.saveIndexAt(n * INDEX_PAGE, () => threads)),
    );
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

  /**
   * The index page holding the `at`-th thread, and the page count when that thread opens a page;
   * the threads are read when the write happens (so threads made meanwhile go out in one write).
   */
  async saveIndexAt(at: number, threads: () => readonly WebThread[]): Promise<void> {
    const page = Math.floor(at / INDEX_PAGE);
    await Promise.all([
      at % INDEX_PAGE === 0
        ? this.writes.write(this.key('thread-pages'), () =>
            Math.ceil(threads().length / INDEX_PAGE),
          )
        : undefined,
      this.writes.write(this.key('thread-index', String(page)), () =>
        threads()
          .slice(page * INDEX_PAGE, (page + 1) * INDEX_PAGE)
          .map((t) => t.id),
      ),
    ]);
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
