// The web chat's own record of its threads: what the page shows, kept in the bot's store so threads
// and messages survive a reload and a restart (Slack and Discord keep theirs on their servers).
// Every change is also pushed to the thread's listeners (the page's event streams); how it is
// stored is transcript-records.ts (a record per thread and per message).
import { randomUUID } from 'node:crypto';
import { TranscriptRecords, type TranscriptStore } from './transcript-records.ts';
import type { WebCard, WebEvent, WebFile, WebMessage, WebThread } from './web-messages.ts';

export type { TranscriptStore } from './transcript-records.ts';
export type * from './web-messages.ts';

const TITLE_CHARS = 60;

/** A thread's listener; an `append` comes with its message as it now is (the live object). */
export type Listener = (e: WebEvent, whole?: WebMessage) => void;

export class Transcript {
  private readonly records: TranscriptRecords;
  private readonly onWriteError: (err: unknown) => void;
  private threads: Promise<WebThread[]> | undefined;
  /** The threads by id: every request names one, and there may be thousands. */
  private readonly byId = new Map<string, WebThread>();
  private readonly loaded = new Map<string, Promise<WebMessage[]>>();
  private readonly statuses = new Map<string, string>();
  private readonly listeners = new Map<string, Set<Listener>>();
  /** The thread of each message created or loaded in this process. */
  private readonly threadOf = new Map<string, string>();

  /** `prefix`: the platform and project every key starts with (`web:local`). */
  constructor(store: TranscriptStore, prefix: string, onWriteError: (err: unknown) => void) {
    this.records = new TranscriptRecords(store, prefix, onWriteError);
    this.onWriteError = onWriteError;
  }

  list(): Promise<WebThread[]> {
    this.threads ??= this.records.loadThreads().then((threads) => {
      for (const t of threads) this.byId.set(t.id, t);
      return threads;
    });
    return this.threads;
  }

  async thread(id: string): Promise<WebThread | undefined> {
    await this.list();
    return this.byId.get(id);
  }

  async createThread(): Promise<WebThread> {
    const threads = await this.list();
    const now = Date.now();
    const t: WebThread = { id: randomUUID(), title: 'New thread', createdAt: now, updatedAt: now };
    threads.push(t);
    this.byId.set(t.id, t);
    this.loaded.set(t.id, Promise.resolve([]));
    await Promise.all([
      this.records.saveThread(t),
      this.records.saveIndexAt(threads.length - 1, () => threads),
    ]);
    return t;
  }

  /** The thread's messages, oldest first (the live array: read it, do not change it). */
  messages(threadId: string): Promise<WebMessage[]> {
    let m = this.loaded.get(threadId);
    if (!m) {
      m = this.records.loadMessages(threadId).then((list) => {
        for (const msg of list) {
          this.threadOf.set(msg.id, threadId);
          // Streams live in the process that began them: one stored as still streaming was cut
          // off by a restart, and shows as the text it reached.
          delete msg.streaming;
        }
        return list;
      });
      this.loaded.set(threadId, m);
    }
    return m;
  }

  status(threadId: string): string | null {
    return this.statuses.get(threadId) ?? null;
  }

  threadOfMessage(messageId: string): string | undefined {
    return this.threadOf.get(messageId);
  }

  /** A person's message; a send the page repeats (same clientId) returns the first one. */
  async addPersonMessage(
    threadId: string,
    m: { text: string; clientId?: string | undefined; files?: WebFile[] },
  ): Promise<{ message: WebMessage; repeated: boolean }> {
    const list = await this.messages(threadId);
    const earlier = m.clientId ? list.find((x) => x.clientId === m.clientId) : undefined;
    if (earlier) return { message: earlier, repeated: true };
    const message: WebMessage = {
      id: messageId(),
      author: 'person',
      text: m.text,
      at: Date.now(),
      ...(m.files?.length ? { files: m.files } : {}),
      ...(m.clientId ? { clientId: m.clientId } : {}),
    };
    this.add(threadId, list, message);
    const t = await this.thread(threadId);
    if (t) {
      t.updatedAt = message.at;
      const title = m.text.trim() || m.files?.map((f) => f.name).join(', ') || '';
      if (t.title === 'New thread' && title && !title.startsWith('/'))
        t.title = title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title;
      this.emit(threadId, { type: 'thread', thread: t });
      await this.records.saveThread(t);
    }
    return { message, repeated: false };
  }

  async addBotMessage(
    threadId: string,
    text: string,
    streaming = false,
    card?: WebCard,
  ): Promise<WebMessage> {
    const list = await this.messages(threadId);
    const message: WebMessage = {
      id: messageId(),
      author: 'bot',
      text,
      at: Date.now(),
      ...(streaming ? { streaming } : {}),
      ...(card ? { card } : {}),
    };
    // What the bot posts ends its status, as on Slack.
    this.setStatus(threadId, null);
    this.add(threadId, list, message);
    return message;
  }

  private add(threadId: string, list: WebMessage[], message: WebMessage): void {
    list.push(message);
    this.threadOf.set(message.id, threadId);
    this.emit(threadId, { type: 'message', message });
    this.records.saveMessage(threadId, message);
    this.saveOrder(threadId, list);
  }

  private saveOrder(threadId: string, list: WebMessage[]): void {
    this.records.saveOrder(threadId, () => list.map((m) => m.id)).catch(this.onWriteError);
  }

  /** Changes a message in place and tells the listeners; false when it is not there. */
  async update(
    threadId: string,
    id: string,
    change: (m: WebMessage) => void,
    persist = true,
  ): Promise<boolean> {
    const m = (await this.messages(threadId)).find((x) => x.id === id);
    if (!m) return false;
    change(m);
    this.emit(threadId, { type: 'message', message: m });
    if (persist) this.records.saveMessage(threadId, m);
    return true;
  }

  /**
   * Adds streamed text: the page gets it at once, the store when the stream stops (the port's
   * `stop` updates the message), so a streamed answer is one write, however many pieces it has.
   */
  async append(threadId: string, id: string, text: string): Promise<boolean> {
    const m = (await this.messages(threadId)).find((x) => x.id === id);
    if (!m) return false;
    m.text += text;
    this.emit(threadId, { type: 'append', id, text }, m);
    return true;
  }

  async remove(threadId: string, id: string): Promise<void> {
    const list = await this.messages(threadId);
    const i = list.findIndex((x) => x.id === id);
    if (i < 0) return;
    const [gone] = list.splice(i, 1);
    this.emit(threadId, { type: 'delete', id });
    this.saveOrder(threadId, list);
    if (gone) this.records.saveMessage(threadId, gone, true);
  }

  setStatus(threadId: string, text: string | null): void {
    if ((this.statuses.get(threadId) ?? null) === text) return;
    if (text === null) this.statuses.delete(threadId);
    else this.statuses.set(threadId, text);
    this.emit(threadId, { type: 'status', text });
  }

  emit(threadId: string, e: WebEvent, whole?: WebMessage): void {
    for (const l of this.listeners.get(threadId) ?? []) l(e, whole);
  }

  /** Listens to one thread; returns the function that stops listening. */
  listen(threadId: string, l: Listener): () => void {
    let set = this.listeners.get(threadId);
    if (!set) {
      set = new Set();
      this.listeners.set(threadId, set);
    }
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0) this.listeners.delete(threadId);
    };
  }

  /** Resolves once every change so far is in the store. */
  flush(): Promise<void> {
    return this.records.flush();
  }
}

let lastId = 0;

/**
 * Message ids that sort by time as strings (microseconds since the epoch, base 36, padded), so the
 * core can tell which came first, as with Slack timestamps and Discord snowflakes.
 */
export function messageId(): string {
  lastId = Math.max(Date.now() * 1000, lastId + 1);
  return lastId.toString(36).padStart(12, '0');
}
