// One page's server-sent event stream, written straight to Node's response (Hono's Node server
// hands a handler its `outgoing`; the handler then answers RESPONSE_ALREADY_SENT). Events go out in
// batches: every stream with something pending is written once per `WriteWindow`, so a thread's
// status, message and `handled` coming a few milliseconds apart are one socket write. Hono's
// streamSSE passed each event through three web streams and wrote it to the socket on its own,
// which at 50 answers in flight was a good part of the bot's CPU per turn.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Writes the streams that have events pending, all at once, `ms` after the first was queued. */
export class WriteWindow {
  private readonly ms: number;
  private readonly due = new Set<EventStream>();
  private timer: NodeJS.Timeout | undefined;

  constructor(ms: number) {
    this.ms = ms;
  }

  add(stream: EventStream): void {
    this.due.add(stream);
    this.timer ??= setTimeout(() => this.write(), this.ms);
  }

  private write(): void {
    this.timer = undefined;
    const due = [...this.due];
    this.due.clear();
    for (const stream of due) stream.flush();
  }
}

export class EventStream {
  private readonly res: ServerResponse;
  private readonly window: WriteWindow;
  /** Events sent since the last write, as they go on the wire. */
  private pending = '';
  /** Resolves once the client has gone or the stream was ended. */
  readonly closed: Promise<void>;

  constructor(res: ServerResponse, headers: OutgoingHttpHeaders, window: WriteWindow) {
    this.res = res;
    this.window = window;
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

  /** Writes what is pending (the window calls this). */
  flush(): void {
    const text = this.pending;
    this.pending = '';
    // Left meanwhile: what it would have got is dropped, as a reopened stream starts from a snapshot.
    if (text && this.open()) this.res.write(text);
  }

  private queue(text: string): void {
    if (!this.open()) return;
    if (!this.pending) this.window.add(this);
    this.pending += text;
  }

  private open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }
}
