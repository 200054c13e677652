// A client of the web chat's HTTP API that follows a thread the way the page does: one event
// stream per thread (server-sent events over fetch), its snapshot, then every change applied in
// order. Tests and the bench read what a person would see from here.
import type { WebEvent, WebMessage, WebThread } from '../../adapters/web/transcript.ts';
import { takeSseEvents } from './sse-blocks.ts';

export interface ThreadView {
  readonly id: string;
  /** Messages as the page shows them now, oldest first. */
  messages(): WebMessage[];
  status(): string | null;
  /** Every event received, in order (snapshot first). */
  readonly events: { type: string; data: unknown }[];
  /** Resolves once `probe` holds on the view (checked after every event). */
  until<T>(probe: () => T | undefined | false, what: string, timeoutMs?: number): Promise<T>;
  close(): void;
}

export class WebChatClient {
  readonly base: string;
  private readonly headers: Record<string, string>;

  constructor(base: string, token?: string) {
    this.base = base.replace(/\/$/, '');
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.base}${path}`, {
      ...init,
      headers: { ...this.headers, ...(init.headers as Record<string, string> | undefined) },
    });
  }

  private async json<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.request(path, init);
    const body = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${body.error}`);
    return body;
  }

  async createThread(): Promise<WebThread> {
    return (await this.json<{ thread: WebThread }>('/api/threads', { method: 'POST' })).thread;
  }

  async threads(): Promise<WebThread[]> {
    return (await this.json<{ threads: WebThread[] }>('/api/threads')).threads;
  }

  /** Sends a message; the answer arrives on the thread's stream. Returns the message id. */
  async send(threadId: string, text: string, clientId?: string): Promise<string> {
    const body = await this.json<{ messageId: string }>(`/api/threads/${threadId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, ...(clientId ? { clientId } : {}) }),
    });
    return body.messageId;
  }

  async upload(
    threadId: string,
    name: string,
    bytes: Uint8Array,
    o: { clientId?: string; text?: string } = {},
  ): Promise<string> {
    const q = new URLSearchParams({ name });
    if (o.clientId) q.set('clientId', o.clientId);
    if (o.text) q.set('text', o.text);
    const body = await this.json<{ messageId: string }>(`/api/threads/${threadId}/files?${q}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    return body.messageId;
  }

  /** Follows a thread's event stream; resolves once its snapshot has arrived. */
  async watch(threadId: string): Promise<ThreadView> {
    const abort = new AbortController();
    const res = await this.request(`/api/threads/${threadId}/events`, { signal: abort.signal });
    if (!res.ok || !res.body) throw new Error(`events of ${threadId}: ${res.status}`);
    const order: string[] = [];
    const byId = new Map<string, WebMessage>();
    let status: string | null = null;
    const events: { type: string; data: unknown }[] = [];
    const waiters = new Set<() => void>();
    const put = (m: WebMessage) => {
      if (!byId.has(m.id)) order.push(m.id);
      byId.set(m.id, { ...m });
    };
    const apply = (type: string, data: Record<string, unknown>) => {
      events.push({ type, data });
      if (type === 'snapshot') {
        order.length = 0;
        byId.clear();
        for (const m of data.messages as WebMessage[]) put(m);
        status = data.status as string | null;
      }
      const e = data as WebEvent;
      if (e.type === 'message') put(e.message);
      if (e.type === 'append') {
        const m = byId.get(e.id);
        if (m) m.text += e.text;
      }
      if (e.type === 'delete') {
        byId.delete(e.id);
        order.splice(order.indexOf(e.id), 1);
      }
      if (e.type === 'status') status = e.text;
      for (const w of [...waiters]) w();
    };
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const pump = async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const { events, rest } = takeSseEvents(buffer + value);
        buffer = rest;
        for (const { type, data } of events) apply(type, data);
      }
    };
    pump().catch(() => undefined);
    const view: ThreadView = {
      id: threadId,
      messages: () => order.map((id) => byId.get(id) as WebMessage),
      status: () => status,
      events,
      until(probe, what, timeoutMs = 15_000) {
        return new Promise((resolve, reject) => {
          const check = () => {
            const v = probe();
            if (v === undefined || v === false || v === null) return;
            waiters.delete(check);
            clearTimeout(timer);
            resolve(v);
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`thread ${threadId}: ${what} did not happen in ${timeoutMs} ms`));
          }, timeoutMs);
          waiters.add(check);
          check();
        });
      },
      close: () => abort.abort(),
    };
    await view.until(() => events.some((e) => e.type === 'snapshot'), 'the snapshot');
    return view;
  }
}
