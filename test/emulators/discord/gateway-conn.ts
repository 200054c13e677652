// One gateway connection. Payloads are JSON text frames, or with `compress=zlib-stream` binary
// frames from a single deflate context per connection, each flushed with Z_SYNC_FLUSH so it
// ends in 00 00 ff ff — the marker @discordjs/ws waits for before inflating.
import zlib from 'node:zlib';
import type { WebSocket } from 'ws';
import type { Session } from './gateway.ts';

export class Conn {
  session?: Session | undefined;
  readonly #deflate?: zlib.Deflate;
  readonly #out: Buffer[] = [];

  readonly ws: WebSocket;

  constructor(ws: WebSocket, compress: boolean) {
    this.ws = ws;
    if (!compress) return;
    this.#deflate = zlib.createDeflate({ chunkSize: 65535 });
    this.#deflate.on('data', (chunk: Buffer) => this.#out.push(chunk));
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  send(payload: { op: number; d: unknown; s?: number | null; t?: string | null }): void {
    const json = JSON.stringify({ t: null, s: null, ...payload });
    if (this.#deflate === undefined) {
      if (this.open) this.ws.send(json);
      return;
    }
    this.#deflate.write(json);
    this.#deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
      const frame = Buffer.concat(this.#out.splice(0));
      if (this.open && frame.length > 0) this.ws.send(frame);
    });
  }

  close(code: number, reason: string): void {
    if (code === 1006) this.ws.terminate();
    else if (this.open) this.ws.close(code, reason);
    this.#deflate?.close();
  }
}
