// The page's event streams (server-sent events): a thread as it is now, then every change, kept
// open with a comment now and then; all of them end when the bot stops. Each is written straight to
// Node's response (src/util/event-stream.ts), events of one event-loop turn in one write. A page
// that reads slower than its thread changes gets each message's latest state instead of every
// piece appended to it, and is cut off (it reconnects to a snapshot) when it falls too far behind.
import type { OutgoingHttpHeaders } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono } from 'hono';
import type { HttpEnv } from '../../src/log/http-app.ts';
import {
  DEFAULT_STREAM_BOUNDS,
  EventStream,
  type StreamBounds,
  WriteWindow,
} from '../../src/util/event-stream.ts';
import type { Transcript, WebEvent, WebMessage } from './transcript.ts';
import { pageHeaders } from './web-http.ts';

/** A comment on idle streams, so proxies and browsers keep them open. */
const KEEPALIVE_MS = 20_000;
/** How long an event waits for others to share its write (the page sees it that much later). */
const WRITE_WINDOW_MS = 10;

export class WebStreams {
  private readonly transcript: Transcript;
  /** Open streams. */
  private readonly streams = new Set<EventStream>();
  private readonly window: WriteWindow;
  /** The security headers every answer carries (the same for every stream). */
  private headers: OutgoingHttpHeaders | undefined;
  private readonly bounds: StreamBounds;
  private readonly onDrop: (threadId: string) => void;

  constructor(
    transcript: Transcript,
    o: { bounds?: StreamBounds; onDrop?: (threadId: string) => void; writeWindowMs?: number } = {},
  ) {
    this.transcript = transcript;
    this.window = new WriteWindow(o.writeWindowMs ?? WRITE_WINDOW_MS);
    this.bounds = o.bounds ?? DEFAULT_STREAM_BOUNDS;
    this.onDrop = o.onDrop ?? (() => undefined);
  }

  /** Each open stream: bytes it holds in memory, of which waiting to be written, and if it is behind. */
  pages(): { held: number; waiting: number; behind: boolean }[] {
    return [...this.streams].map((s) => ({
      held: s.held,
      waiting: s.waitingFor,
      behind: s.behind,
    }));
  }

  /** Server-sent events: the thread as it is now, then every change. */
  async events(c: Context<HttpEnv>, threadId: string): Promise<Response> {
    const messages = await this.transcript.messages(threadId);
    const thread = await this.transcript.thread(threadId);
    const stream = new EventStream(
      c.env.outgoing,
      await this.headersOf(),
      this.window,
      this.bounds,
    );
    const snapshot = {
      type: 'snapshot',
      thread,
      messages,
      status: this.transcript.status(threadId),
    };
    // A lost stream is reopened after two seconds, and starts again from a snapshot.
    stream.send('snapshot', JSON.stringify(snapshot), 2000);
    const unlisten = this.transcript.listen(threadId, (e, whole) => sendEvent(stream, e, whole));
    const keepalive = setInterval(() => stream.comment('keep-alive'), KEEPALIVE_MS);
    keepalive.unref();
    this.streams.add(stream);
    // The stream stays open until the page leaves or the bot stops.
    void stream.closed.then(() => {
      clearInterval(keepalive);
      unlisten();
      this.streams.delete(stream);
      if (stream.dropped) this.onDrop(threadId);
    });
    return RESPONSE_ALREADY_SENT;
  }

  /** The headers pageHeaders gives every answer (asked of Hono once) and a stream's own. */
  private async headersOf(): Promise<OutgoingHttpHeaders> {
    if (!this.headers) {
      const probe = new Hono().use(pageHeaders).get('/', (c) => c.body(null));
      const { headers } = await probe.request('/');
      this.headers = {
        ...Object.fromEntries(headers),
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      };
    }
    return this.headers;
  }

  /** Ends every stream (they would hold the server open). */
  end(): void {
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }
}

/**
 * A message's events are keyed by its id, the status and the thread's title by their kind, so a
 * page that is behind gets their latest state in place of what still waits for it.
 */
function sendEvent(stream: EventStream, e: WebEvent, whole: WebMessage | undefined): void {
  if (e.type === 'append') {
    if (whole && stream.behind)
      stream.state('message', e.id, JSON.stringify({ type: 'message', message: whole }));
    else stream.change('append', e.id, JSON.stringify(e));
  } else if (e.type === 'message') stream.state('message', e.message.id, JSON.stringify(e));
  else if (e.type === 'status' || e.type === 'thread')
    stream.state(e.type, e.type, JSON.stringify(e));
  else stream.send(e.type, JSON.stringify(e));
}
