// The web chat's own record of its threads: what the page shows, kept in the bot's store so threads
// and messages survive a reload and a restart (Slack and Discord keep theirs on their servers).
// Every change is also pushed to the thread's listeners (the page's event streams).
import { randomUUID } from 'node:crypto';
import type { Reaction } from '../../src/model/platform-port.ts';

/** The part of the bot's key-value store the transcript needs (keyv's get and set). */
export interface TranscriptStore {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<unknown>;
}

export interface WebFile {
  id: string;
  name: string;
  size: number;
}

export interface WebMessage {
  id: string;
  author: 'person' | 'bot';
  text: string;
  /** Epoch milliseconds. */
  at: number;
  files?: WebFile[];
  /** The bot's ✅/⚠️ on a message that carried files. */
  reactions?: Reaction[];
  /** Files of this message are read or refused (their outcome is in the thread). */
  filesDone?: boolean;
  /** The page's id for a send, so a repeated send is one message. */
  clientId?: string;
  /** A natively streamed answer still being written. */
  streaming?: boolean;
  /** What the answer used, one line each (outdated ones say so). */
  sources?: string[];
  /** 👍 and 👎 under an answer (their action references); absent: no buttons. */
  votes?: { label: string; ref: string }[];
  /** The reference of the vote given here (its button shows pressed). */
  voted?: string;
  /** A flow's card, confirmation or form under the text. */
  card?: WebCard;
}

/** A field of a card's form, as the page draws it (the core's FormField as JSON). */
export interface WebField {
  kind: 'short' | 'long' | 'select' | 'multi' | 'number' | 'toggle';
  id: string;
  label: string;
  help?: string;
  optional?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  choices?: { value: string; label: string }[];
  initial?: string | number | boolean | string[];
}

/**
 * What a flow shows on the page (the core's card, confirmation or form as JSON): its words are
 * the bot's (Markdown, rendered by the page like an answer), its buttons and form carry action
 * references the page posts back.
 */
export interface WebCard {
  title?: string;
  fields?: { label: string; value: string }[];
  context?: string;
  actions?: { label: string; ref: string; style?: 'primary' | 'danger' }[];
  form?: {
    fields: WebField[];
    submit: { label: string; ref: string };
    cancel: { label: string; ref: string };
  };
  /** Problems with what was filled in, by field id. */
  errors?: Record<string, string>;
  /** A file for the person (an export), downloaded from the page. */
  file?: { name: string; body: string };
}

export interface WebThread {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
}

/** What a thread's listeners receive. */
export type WebEvent =
  | { type: 'message'; message: WebMessage }
  | { type: 'append'; id: string; text: string }
  | { type: 'delete'; id: string }
  | { type: 'status'; text: string | null }
  | { type: 'thread'; thread: WebThread }
  | { type: 'handled'; messageId: string; status: string };

const TITLE_CHARS = 60;

export class Transcript {
  private readonly store: TranscriptStore;
  private readonly prefix: string;
  private readonly onWriteError: (err: unknown) => void;
  private threads: Promise<WebThread[]> | undefined;
  private readonly loaded = new Map<string, Promise<WebMessage[]>>();
  private readonly statuses = new Map<string, string>();
  private readonly listeners = new Map<string, Set<(e: WebEvent) => void>>();
  /** The thread of each message created or loaded in this process. */
  private readonly threadOf = new Map<string, string>();
  private readonly writes = new Map<string, { done: Promise<void>; again: boolean }>();

  /** `prefix`: the platform and project every key starts with (`web:local`). */
  constructor(store: TranscriptStore, prefix: string, onWriteError: (err: unknown) => void) {
    this.store = store;
    this.prefix = prefix;
    this.onWriteError = onWriteError;
  }

  private get threadsKey(): string {
    return `${this.prefix}:threads`;
  }

  private messagesKey(threadId: string): string {
    return `${this.prefix}:transcript:${threadId}`;
  }

  list(): Promise<WebThread[]> {
    this.threads ??= this.store
      .get(this.threadsKey)
      .then((v) => (Array.isArray(v) ? (v as WebThread[]) : []));
    return this.threads;
  }

  async thread(id: string): Promise<WebThread | undefined> {
    return (await this.list()).find((t) => t.id === id);
  }

  async createThread(): Promise<WebThread> {
    const threads = await this.list();
    const now = Date.now();
    const t: WebThread = { id: randomUUID(), title: 'New thread', createdAt: now, updatedAt: now };
    threads.push(t);
    this.loaded.set(t.id, Promise.resolve([]));
    await this.persistThreads();
    return t;
  }

  /** The thread's messages, oldest first (the live array: read it, do not change it). */
  messages(threadId: string): Promise<WebMessage[]> {
    let m = this.loaded.get(threadId);
    if (!m) {
      m = this.store.get(this.messagesKey(threadId)).then((v) => {
        const list = Array.isArray(v) ? (v as WebMessage[]) : [];
        for (const msg of list) this.threadOf.set(msg.id, threadId);
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
      await this.persistThreads();
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
    this.persistMessages(threadId);
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
    if (persist) this.persistMessages(threadId);
    return true;
  }

  /** Adds streamed text; stored when the stream stops. */
  async append(threadId: string, id: string, text: string): Promise<boolean> {
    const m = (await this.messages(threadId)).find((x) => x.id === id);
    if (!m) return false;
    m.text += text;
    this.emit(threadId, { type: 'append', id, text });
    return true;
  }

  async remove(threadId: string, id: string): Promise<void> {
    const list = await this.messages(threadId);
    const i = list.findIndex((x) => x.id === id);
    if (i < 0) return;
    list.splice(i, 1);
    this.emit(threadId, { type: 'delete', id });
    this.persistMessages(threadId);
  }

  setStatus(threadId: string, text: string | null): void {
    if ((this.statuses.get(threadId) ?? null) === text) return;
    if (text === null) this.statuses.delete(threadId);
    else this.statuses.set(threadId, text);
    this.emit(threadId, { type: 'status', text });
  }

  emit(threadId: string, e: WebEvent): void {
    for (const l of this.listeners.get(threadId) ?? []) l(e);
  }

  /** Listens to one thread; returns the function that stops listening. */
  listen(threadId: string, l: (e: WebEvent) => void): () => void {
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

  private persistThreads(): Promise<void> {
    return this.write(this.threadsKey, async () => this.list());
  }

  private persistMessages(threadId: string): void {
    this.write(this.messagesKey(threadId), () => this.messages(threadId)).catch(this.onWriteError);
  }

  /** One write per key at a time; changes made meanwhile go out in one more write of the latest state. */
  private write(key: string, value: () => Promise<unknown>): Promise<void> {
    const pending = this.writes.get(key);
    if (pending) {
      pending.again = true;
      return pending.done;
    }
    const w = { done: Promise.resolve(), again: true };
    w.done = (async () => {
      try {
        while (w.again) {
          w.again = false;
          await this.store.set(key, await value());
        }
      } finally {
        this.writes.delete(key);
      }
    })();
    this.writes.set(key, w);
    return w.done;
  }

  /** Resolves once every change so far is in the store. */
  async flush(): Promise<void> {
    while (this.writes.size > 0)
      await Promise.allSettled([...this.writes.values()].map((w) => w.done));
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
