// The load generator's page for the web bench: what test/support/web-client.ts does for a turn
// (create a thread, follow its event stream, send the question, apply every event to the thread
// as the page does), on node:http instead of fetch. A browser parses server-sent events in native
// code; fetch with a TextDecoderStream and web-stream readers cost the load generator, which
// shares the machine's two cores with the bot, more than the bot's own event-stream writing
// (bench/web-bench.ts reports that process's event-loop delay).
import http from 'node:http';
import type { WebEvent, WebMessage } from '../adapters/web/web-messages.ts';
import { takeSseEvents } from '../test/support/sse-blocks.ts';

export interface PageThread {
  id: string;
  /** Resolves with `at()` when `probe` first holds after an event; the stream then closes. */
  until(probe: (messages: WebMessage[]) => boolean, at: () => number, ms: number): Promise<number>;
}

export class PageClient {
  private readonly url: URL;
  private readonly agent = new http.Agent({ keepAlive: true });

  constructor(base: string) {
    this.url = new URL(base);
  }

  private request(path: string, method: string, body?: string): http.ClientRequest {
    return http.request({
      host: this.url.hostname,
      port: this.url.port,
      path,
      method,
      agent: this.agent,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
    });
  }

  /** A JSON request and its JSON answer; throws on any status but 2xx. */
  json<T>(path: string, method: string, body?: unknown): Promise<T> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = this.request(path, method, text);
      req.once('error', reject);
      req.once('response', (res) => {
        let got = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          got += d;
        });
        res.once('error', reject);
        res.once('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299)
            reject(new Error(`${method} ${path}: ${status} ${got}`));
          else resolve(JSON.parse(got) as T);
        });
      });
      req.end(text);
    });
  }

  /** Follows a thread's event stream; resolves once its snapshot has been applied. */
  watch(threadId: string): Promise<PageThread> {
    const order: string[] = [];
    const byId = new Map<string, WebMessage>();
    const put = (m: WebMessage) => {
      if (!byId.has(m.id)) order.push(m.id);
      byId.set(m.id, { ...m });
    };
    let check = (): void => undefined;
    const apply = (type: string, data: Record<string, unknown>) => {
      if (type === 'snapshot') {
        order.length = 0;
        byId.clear();
        for (const m of data.messages as WebMessage[]) put(m);
      }
      const e = data as WebEvent;
      if (e.type === 'message') put(e.message);
      else if (e.type === 'append') {
        const m = byId.get(e.id);
        if (m) m.text += e.text;
      } else if (e.type === 'delete' && byId.delete(e.id)) order.splice(order.indexOf(e.id), 1);
      check();
    };
    return new Promise<PageThread>((resolve, reject) => {
      const req = this.request(`/api/threads/${threadId}/events`, 'GET');
      req.once('error', reject);
      req.once('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`events: ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        let snapshot = false;
        res.on('error', () => undefined);
        res.on('data', (d: string) => {
          const { events, rest } = takeSseEvents(buffer + d);
          buffer = rest;
          for (const { type, data } of events) {
            apply(type, data);
            if (type === 'snapshot' && !snapshot) {
              snapshot = true;
              resolve({ id: threadId, until });
            }
          }
        });
      });
      req.end();
      const until = (probe: (messages: WebMessage[]) => boolean, at: () => number, ms: number) =>
        new Promise<number>((done, fail) => {
          const timer = setTimeout(() => {
            req.destroy();
            fail(new Error(`thread ${threadId}: no answer in ${ms} ms`));
          }, ms);
          check = () => {
            if (!probe(order.map((id) => byId.get(id) as WebMessage))) return;
            const t = at();
            check = () => undefined;
            clearTimeout(timer);
            req.destroy();
            done(t);
          };
          check();
        });
    });
  }
}
