// The page's event streams (Hono's server-sent events): a thread as it is now, then every change,
// kept open with a comment now and then; all of them end when the bot stops.
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { orderedEvents } from '../../src/log/http-app.ts';
import type { Transcript, WebEvent } from './transcript.ts';

/** A comment on idle streams, so proxies and browsers keep them open. */
const KEEPALIVE_MS = 20_000;

export class WebStreams {
  private readonly transcript: Transcript;
  /** Open streams, each with what ends it. */
  private readonly streams = new Map<SSEStreamingApi, () => void>();

  constructor(transcript: Transcript) {
    this.transcript = transcript;
  }

  /** Server-sent events: the thread as it is now, then every change. */
  async events(c: Context, threadId: string): Promise<Response> {
    const messages = await this.transcript.messages(threadId);
    const thread = await this.transcript.thread(threadId);
    const res = streamSSE(c, async (stream) => {
      const events = orderedEvents(stream);
      const send = (e: WebEvent) => events.send({ event: e.type, data: JSON.stringify(e) });
      const snapshot = {
        type: 'snapshot',
        thread,
        messages,
        status: this.transcript.status(threadId),
      };
      // A lost stream is reopened after two seconds, and starts again from a snapshot.
      events.send({ event: 'snapshot', data: JSON.stringify(snapshot), retry: 2000 });
      const unlisten = this.transcript.listen(threadId, send);
      const keepalive = setInterval(() => void stream.write(': keep-alive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      // The stream stays open until the page leaves or the bot stops.
      await new Promise<void>((resolve) => {
        this.streams.set(stream, resolve);
        stream.onAbort(resolve);
      });
      clearInterval(keepalive);
      unlisten();
      this.streams.delete(stream);
    });
    res.headers.set('cache-control', 'no-store');
    res.headers.set('x-accel-buffering', 'no');
    return res;
  }

  /** Ends every stream (they would hold the server open). */
  end(): void {
    for (const [stream, ended] of this.streams) {
      ended();
      void stream.close();
    }
    this.streams.clear();
  }
}
