// One page's server-sent event stream, written straight to Node's response (Hono's Node server
// hands a handler its `outgoing`; the handler then answers RESPONSE_ALREADY_SENT). Events go out in
// batches: every stream with something pending is written once per `WriteWindow`, so a thread's
// status, message and `handled` coming a few milliseconds apart are one socket write. Hono's
// streamSSE passed each event through three web streams and wrote it to the socket on its own,
// which at 50 answers in flight was a good part of the bot's CPU per turn.
//
// A client that reads slowly is held back rather than buffered without end: while more than
// `holdBytes` are still unsent in the response, events wait here and a keyed state replaces what
// is waiting for its key (a message's latest text stands for every piece appended to it), and a
// client whose unsent bytes stay over `dropBytes` for `dropAfterMs` is cut off (it reconnects and
// starts again from a snapshot).
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

/** How much a slow client may hold up (bytes unsent in the response and waiting here). */
export interface StreamBounds {
  /** Over this many unsent bytes in the response, events wait and keyed states coalesce. */
  holdBytes: number;
  /** A stream whose unsent and waiting bytes stay over this… */
  dropBytes: number;
  /** …for this long is ended. */
  dropAfterMs: number;
}

export const DEFAULT_STREAM_BOUNDS: StreamBounds = {
  holdBytes: 64 * 1024,
  dropBytes: 1024 * 1024,
  dropAfterMs: 10_000,
};

/** A waiting event as it goes on the wire; a keyed one may be replaced by a later state. */
interface Waiting {
  text: string;
  key: string | undefined;
}

export class EventStream {
  private readonly res: ServerResponse;
  private readonly window: WriteWindow;
  private readonly bounds: StreamBounds;
  private readonly now: () => number;
  private waiting: Waiting[] = [];
  private waitingBytes = 0;
  /** Set while the response is over `holdBytes` and the stream waits for it to drain. */
  private draining = false;
  /** Since when the stream has been over `dropBytes`. */
  private overSince: number | undefined;
  /** Resolves once the client has gone or the stream was ended. */
  readonly closed: Promise<void>;
  /** Set once the stream was cut off for reading too slowly. */
  dropped = false;

  constructor(
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
    window: WriteWindow,
    bounds: StreamBounds = DEFAULT_STREAM_BOUNDS,
    now: () => number = Date.now,
  ) {
    this.res = res;
    this.window = window;
    this.bounds = bounds;
    this.now = now;
    this.closed = new Promise((resolve) => res.once('close', resolve));
    // `connection` set here (as streamSSE did) keeps Node from adding a `keep-alive: timeout=65`
    // hint, which has clients hold their spare connections open that long and the bot's stop wait.
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream',
      connection: 'keep-alive',
    });
  }

  /** The client reads slower than events come: send states rather than changes to them. */
  get behind(): boolean {
    return this.draining || this.res.writableLength > this.bounds.holdBytes;
  }

  /** Bytes this client holds in memory: unsent in the response and waiting here. */
  get held(): number {
    return this.res.writableLength + this.waitingBytes;
  }

  /** Bytes waiting here for the next write. */
  get waitingFor(): number {
    return this.waitingBytes;
  }

  /** An event whose data is one line (JSON is: it escapes line breaks). */
  send(event: string, data: string, retryMs?: number): void {
    this.queue(
      `event: ${event}\ndata: ${data}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}\n`,
    );
  }

  /**
   * The whole state of `key` (a message as it is now): it takes the place of whatever is still
   * waiting for that key, which it makes redundant; `send`'s changes to it must be keyed too.
   */
  state(event: string, key: string, data: string): void {
    this.queue(`event: ${event}\ndata: ${data}\n\n`, key);
  }

  /** A change to `key`'s state: a later `state` of the key replaces it while it waits. */
  change(event: string, key: string, data: string): void {
    this.queue(`event: ${event}\ndata: ${data}\n\n`, key, false);
  }

  /** A comment line: the page ignores it, proxies see traffic. */
  comment(text: string): void {
    this.queue(`: ${text}\n\n`);
  }

  /** Writes what is pending and ends the response. */
  end(): void {
    this.write();
    if (!this.res.writableEnded) this.res.end();
  }

  /** Writes what is pending unless the response is still over its bound (the window calls this). */
  flush(): void {
    if (this.waiting.length === 0 || !this.open()) return;
    // Over the bound with a write refused: Node says when the response has drained.
    if (this.res.writableLength > this.bounds.holdBytes && this.res.writableNeedDrain) {
      if (!this.draining) {
        this.draining = true;
        this.res.once('drain', () => {
          this.draining = false;
          this.flush();
        });
      }
      return;
    }
    this.write();
  }

  private write(): void {
    const text = this.waiting.length === 1 ? (this.waiting[0]?.text ?? '') : this.joined();
    this.waiting = [];
    this.waitingBytes = 0;
    // Left meanwhile: what it would have got is dropped, as a reopened stream starts from a snapshot.
    if (text && this.open()) this.res.write(text);
  }

  private joined(): string {
    let text = '';
    for (const w of this.waiting) text += w.text;
    return text;
  }

  private queue(text: string, key?: string, whole = true): void {
    if (!this.open()) return;
    if (this.waiting.length === 0 && !this.draining) this.window.add(this);
    if (key !== undefined && whole && this.behind && this.replace(key, text)) return;
    this.waiting.push({ text, key });
    this.waitingBytes += text.length;
    this.checkBounds();
  }

  /** Puts `text` in place of the first waiting event of `key` and drops the later ones. */
  private replace(key: string, text: string): boolean {
    const first = this.waiting.findIndex((w) => w.key === key);
    if (first < 0) return false;
    const kept: Waiting[] = [];
    let bytes = 0;
    for (const [i, w] of this.waiting.entries()) {
      if (i > first && w.key === key) continue;
      const out = i === first ? { text, key } : w;
      kept.push(out);
      bytes += out.text.length;
    }
    this.waiting = kept;
    this.waitingBytes = bytes;
    this.checkBounds();
    return true;
  }

  private checkBounds(): void {
    if (this.held <= this.bounds.dropBytes) {
      this.overSince = undefined;
      return;
    }
    const now = this.now();
    this.overSince ??= now;
    if (now - this.overSince < this.bounds.dropAfterMs) return;
    this.dropped = true;
    this.waiting = [];
    this.waitingBytes = 0;
    this.res.destroy();
  }

  private open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }
}
