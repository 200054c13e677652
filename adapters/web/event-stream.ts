// One page's server-sent event stream, written straight to Node's response (Hono's Node server
// hands a handler its `outgoing`; the handler then answers RESPONSE_ALREADY_SENT). Events sent in
// one turn of the event loop go out as one write: Hono's streamSSE passes each event through three
// web streams and writes it to the socket on its own, which at 50 answers in flight was a good part
// of the bot's CPU per turn.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export class EventStream {
  private readonly res: ServerResponse;
  /** Events sent since the last write, as they go on the wire. */
  private pending = '';
  private scheduled = false;
  /** Resolves once the client has gone or the stream was ended. */
  readonly closed: Promise<void>;

  constructor(res: ServerResponse, headers: OutgoingHttpHeaders) {
    this.res = res;
    this.closed = new Promise((resolve) => res.once('close', resolve));
    // `connection` set here (as streamSSE did) keeps Node from adding a `keep-alive: timeout=65`
    // hint, which has clients hold their spare connections open that long and the bot's stop wait.
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream',
      connection: 'keep-alive',
    });
  }

  /** An event whose data is one line (JSON is: it escapes line breaks). */
  send(event: string, data: string, retryMs?: number): void {
    this.queue(
      `event: ${event}\ndata: ${data}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}\n`,
    );
  }

  /** A comment line: the page ignores it, proxies see traffic. */
  comment(text: string): void {
    this.queue(`: ${text}\n\n`);
  }

  /** Writes what is pending and ends the response. */
  end(): void {
    this.flush();
    if (!this.res.writableEnded) this.res.end();
  }

  private queue(text: string): void {
    if (!this.open()) return;
    this.pending += text;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const text = this.pending;
    this.pending = '';
    // Left meanwhile: what it would have got is dropped, as a reopened stream starts from a snapshot.
    if (text && this.open()) this.res.write(text);
  }

  private open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }
}
