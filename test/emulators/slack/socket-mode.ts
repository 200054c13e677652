// Socket Mode: the WebSocket end of apps.connections.open. Slack greets with `hello`, wraps each
// Events API envelope in an `events_api` message and waits for `{envelope_id}` as the ack.
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { DeliveryResult } from './types.ts';

export interface SocketSendOptions {
  timeoutMs: number;
  retryAttempt?: number;
  retryReason?: string;
  /** 'events_api' (default), 'slash_commands' or 'interactive'. */
  type?: string;
}

interface Pending {
  socket: WebSocket;
  resolve: (r: DeliveryResult) => void;
}

// Slack pings its Socket Mode clients; @slack/socket-mode starts a 30 s watchdog after the first.
const PING_INTERVAL_MS = 5000;

export class SocketModeServer {
  readonly #appId: string;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #open: WebSocket[] = [];
  readonly #pending = new Map<string, Pending>();
  readonly #pinger: NodeJS.Timeout;
  #closing = false;

  constructor(appId: string) {
    this.#appId = appId;
    this.#pinger = setInterval(() => {
      for (const ws of this.#open) if (ws.readyState === ws.OPEN) ws.ping();
    }, PING_INTERVAL_MS);
    this.#pinger.unref();
  }

  /** A fresh single-use URL, as apps.connections.open returns. */
  newUrl(origin: string): string {
    const ticket = randomBytes(16).toString('hex');
    this.#tickets.add(ticket);
    return `${origin}/link/?ticket=${ticket}&app_id=${this.#appId}`;
  }

  get connected(): boolean {
    return this.#open.some((ws) => ws.readyState === ws.OPEN);
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'ws://emulator');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (this.#closing || url.pathname !== '/link/' || !this.#tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
  }

  /** Sends one envelope; resolves 200 on the client's ack or 0 when none comes in time. */
  send(payload: Record<string, unknown>, opts: SocketSendOptions): Promise<DeliveryResult> {
    // Slack hands an event to one of the app's connections; the newest is as good as any.
    const socket = this.#open.findLast((ws) => ws.readyState === ws.OPEN);
    if (socket === undefined) {
      return Promise.resolve({
        status: 0,
        body: '',
        elapsedMs: 0,
        headers: {},
        error: 'no socket',
      });
    }
    const envelopeId = randomUUID();
    const started = Date.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(envelopeId);
        resolve(result(0, '', started, `timeout: no ack within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
      this.#pending.set(envelopeId, {
        socket,
        resolve: (r) => {
          clearTimeout(timer);
          this.#pending.delete(envelopeId);
          resolve({ ...r, elapsedMs: Date.now() - started });
        },
      });
      const type = opts.type ?? 'events_api';
      // Commands and interactions may answer in the ack (ack payload); events may not, and only
      // events carry retry fields.
      const frame: Record<string, unknown> =
        type === 'events_api'
          ? {
              envelope_id: envelopeId,
              payload,
              type,
              accepts_response_payload: false,
              retry_attempt: opts.retryAttempt ?? 0,
              retry_reason: opts.retryReason ?? '',
            }
          : { envelope_id: envelopeId, payload, type, accepts_response_payload: true };
      socket.send(JSON.stringify(frame));
    });
  }

  /**
   * Closes every connection with a proper close handshake. Cutting the TCP connection instead
   * makes @slack/socket-mode leak its 30 s close-handshake timer when the app is already
   * disconnecting (Bolt's app.stop() does not wait for that), which holds the test process open.
   */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#pinger);
    for (const [id, p] of this.#pending) p.resolve(result(0, '', Date.now(), `closed (${id})`));
    await Promise.all([...this.#open].map((ws) => closeGracefully(ws)));
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(ws: WebSocket): void {
    this.#open.push(ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: unknown;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      const envelopeId = (msg as { envelope_id?: unknown }).envelope_id;
      if (typeof envelopeId !== 'string') return;
      const payload = (msg as { payload?: unknown }).payload ?? {};
      this.#pending.get(envelopeId)?.resolve(result(200, JSON.stringify(payload), Date.now()));
    });
    ws.on('close', () => {
      const i = this.#open.indexOf(ws);
      if (i >= 0) this.#open.splice(i, 1);
      for (const p of this.#pending.values()) {
        if (p.socket === ws) p.resolve(result(0, '', Date.now(), 'connection closed before ack'));
      }
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.#open.length,
        debug_info: { host: 'emulator', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.#appId },
      }),
    );
  }
}

const CLOSE_GRACE_MS = 1000;

function closeGracefully(ws: WebSocket): Promise<void> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, CLOSE_GRACE_MS);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    // 1001 "going away": what a server sends when it shuts down.
    if (ws.readyState === ws.OPEN) ws.close(1001, 'emulator closing');
  });
}

function result(status: number, body: string, started: number, error?: string): DeliveryResult {
  const r: DeliveryResult = { status, body, elapsedMs: Date.now() - started, headers: {} };
  if (error !== undefined) r.error = error;
  return r;
}
