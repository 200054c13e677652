// The page's event streams (server-sent events): a thread as it is now, then every change, kept
// open with a comment now and then; all of them end when the bot stops.
import type http from 'node:http';
import type { Transcript, WebEvent } from './transcript.ts';

/** A comment on idle streams, so proxies and browsers keep them open. */
const KEEPALIVE_MS = 20_000;

export class WebStreams {
  private readonly transcript: Transcript;
  private readonly streams = new Set<http.ServerResponse>();

  constructor(transcript: Transcript) {
    this.transcript = transcript;
  }

  /** Server-sent events: the thread as it is now, then every change. */
  async events(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
  ): Promise<void> {
    const messages = await this.transcript.messages(threadId);
    const thread = await this.transcript.thread(threadId);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    const send = (e: WebEvent | { type: 'snapshot'; [k: string]: unknown }) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.write('retry: 2000\n\n');
    send({ type: 'snapshot', thread, messages, status: this.transcript.status(threadId) });
    const unlisten = this.transcript.listen(threadId, send);
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    this.streams.add(res);
    const close = () => {
      clearInterval(keepalive);
      unlisten();
      this.streams.delete(res);
    };
    req.once('close', close);
    res.once('close', close);
  }

  /** Ends every stream (they would hold the server open). */
  end(): void {
    for (const s of this.streams) s.end();
    this.streams.clear();
  }
}
