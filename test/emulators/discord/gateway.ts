// The Gateway: HELLO → IDENTIFY → READY + GUILD_CREATEs, heartbeats, dispatches numbered per
// session, RESUME with replay of what was missed, INVALID_SESSION for dead sessions. JSON
// encoding; `compress=zlib-stream` is honoured (one deflate context per connection, each payload
// ending in a Z_SYNC_FLUSH marker) although discord.js only asks for it with zlib-sync installed.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { Conn } from './gateway-conn.ts';
import type { DropOptions, GatewayStats } from './types.ts';

export const Intents = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  DirectMessages: 1 << 12,
  DirectMessageReactions: 1 << 13,
  MessageContent: 1 << 15,
} as const;
// GUILDS … DIRECT_MESSAGE_POLLS (bit 25); anything above is an invalid intent (close 4013).
const KNOWN_INTENTS = (1 << 26) - 1;
// GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT: refused (4014) unless enabled for the app.
export const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | Intents.MessageContent;
/** Events a session keeps for a RESUME; one further behind gets INVALID_SESSION (d: false). */
const BACKLOG_LIMIT = 5000;
/** How long a disconnected session stays resumable (Discord keeps it a few minutes). */
const RESUME_WINDOW_MS = 120_000;

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

export interface Session {
  id: string;
  intents: number;
  seq: number;
  backlog: Dispatch[];
  conn?: Conn | undefined;
  /** Epoch ms its last connection went away; undefined while one is attached. */
  disconnectedAt?: number | undefined;
}

/** What a dispatch carries for a session with these intents; undefined: not sent to it. */
export type Shaper = (intents: number) => unknown;

export interface GatewayDeps {
  botToken: string;
  heartbeatIntervalMs: number;
  /** Privileged intents enabled for the application in the developer portal. */
  allowedPrivileged: number;
  /** READY's data for a new session, then the GUILD_CREATE data of each guild. */
  onIdentify: (sessionId: string) => { ready: unknown; guilds: unknown[] };
  /** How long a disconnected session may be resumed; default two minutes. */
  resumeWindowMs?: number | undefined;
  /** Events kept per session for replay; default 5000. */
  replayLimit?: number | undefined;
}

export class Gateway {
  readonly #deps: GatewayDeps;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #sessions = new Map<string, Session>();
  readonly #conns = new Set<Conn>();
  readonly #stats = { identified: 0, resumed: 0, invalidated: 0 };
  #closing = false;

  constructor(deps: GatewayDeps) {
    this.#deps = deps;
  }

  stats(): GatewayStats {
    const connected = [...this.#conns].filter((c) => c.open && c.session !== undefined).length;
    return { ...this.#stats, connected };
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'ws://emulator');
    if (this.#closing || (url.pathname !== '/' && url.pathname !== '/resume')) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const compress = url.searchParams.get('compress');
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Conn(ws, compress === 'zlib-stream');
      this.#conns.add(conn);
      ws.on('message', (data) => this.#onMessage(conn, data.toString()));
      ws.on('close', (code) => this.#onClose(conn, code));
      ws.on('error', () => {});
      const v = url.searchParams.get('v');
      const encoding = url.searchParams.get('encoding') ?? 'json';
      if (v !== null && v !== '10' && v !== '9') {
        conn.close(4012, 'Invalid API version');
        return;
      }
      if (encoding !== 'json') {
        conn.close(4002, 'Only JSON encoding is emulated');
        return;
      }
      if (compress !== null && compress !== 'zlib-stream') {
        conn.close(4002, 'Unsupported compression');
        return;
      }
      conn.send({ op: 10, d: { heartbeat_interval: this.#deps.heartbeatIntervalMs } });
    });
  }

  /** Sends an event to every live session (buffered for disconnected, resumable ones). */
  dispatch(t: string, shape: Shaper): void {
    this.#expire(Date.now());
    for (const session of this.#sessions.values()) {
      const d = shape(session.intents);
      if (d !== undefined) this.#send(session, t, d);
    }
  }

  /** Closes every bot connection; sessions stay resumable unless told otherwise. */
  drop(opts: DropOptions = {}): void {
    for (const conn of this.#conns) {
      if (conn.session !== undefined && opts.resumable === false) {
        this.#sessions.delete(conn.session.id);
      }
      conn.close(opts.code ?? 4000, 'Unknown error');
    }
  }

  /** Every session without a connection ends now, as if its resume window had passed. */
  expireDisconnected(): number {
    return this.#expire(Number.POSITIVE_INFINITY);
  }

  #expire(now: number): number {
    const window = this.#deps.resumeWindowMs ?? RESUME_WINDOW_MS;
    let ended = 0;
    for (const [id, s] of this.#sessions) {
      if (s.disconnectedAt !== undefined && now - s.disconnectedAt >= window) {
        this.#sessions.delete(id);
        ended += 1;
      }
    }
    return ended;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      [...this.#conns].map(
        (conn) =>
          new Promise<void>((resolve) => {
            if (conn.ws.readyState === conn.ws.CLOSED) return resolve();
            const timer = setTimeout(() => {
              conn.ws.terminate();
              resolve();
            }, 1000);
            conn.ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            conn.close(1001, 'emulator closing');
          }),
      ),
    );
    this.#sessions.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #send(session: Session, t: string, d: unknown): void {
    session.seq += 1;
    const event: Dispatch = { s: session.seq, t, d };
    session.backlog.push(event);
    if (session.backlog.length > (this.#deps.replayLimit ?? BACKLOG_LIMIT)) session.backlog.shift();
    if (session.conn?.open === true) session.conn.send({ op: 0, ...event });
  }

  #onMessage(conn: Conn, raw: string): void {
    let msg: { op?: unknown; d?: unknown };
    try {
      msg = JSON.parse(raw) as { op?: unknown; d?: unknown };
    } catch {
      conn.close(4002, 'Decode error');
      return;
    }
    switch (msg.op) {
      case 1:
        conn.send({ op: 11, d: null });
        return;
      case 2:
        this.#identify(conn, (msg.d ?? {}) as Record<string, unknown>);
        return;
      case 6:
        this.#resume(conn, (msg.d ?? {}) as Record<string, unknown>);
        return;
      case 3:
      case 4:
      case 8:
        // Presence, voice state and member requests: accepted, nothing to emulate.
        if (conn.session === undefined) conn.close(4003, 'Not authenticated');
        return;
      default:
        conn.close(4001, 'Unknown opcode');
        return;
    }
  }

  #identify(conn: Conn, d: Record<string, unknown>): void {
    if (conn.session !== undefined) {
      conn.close(4005, 'Already authenticated');
      return;
    }
    if (d.token !== this.#deps.botToken) {
      conn.close(4004, 'Authentication failed');
      return;
    }
    const intents = d.intents;
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0) {
      conn.close(4013, 'Invalid intent(s)');
      return;
    }
    if ((intents & ~KNOWN_INTENTS) !== 0) {
      conn.close(4013, 'Invalid intent(s)');
      return;
    }
    if ((intents & PRIVILEGED_INTENTS & ~this.#deps.allowedPrivileged) !== 0) {
      conn.close(4014, 'Disallowed intent(s)');
      return;
    }
    const session: Session = { id: randomBytes(16).toString('hex'), intents, seq: 0, backlog: [] };
    session.conn = conn;
    conn.session = session;
    this.#sessions.set(session.id, session);
    this.#stats.identified += 1;
    const { ready, guilds } = this.#deps.onIdentify(session.id);
    this.#send(session, 'READY', ready);
    for (const g of guilds) this.#send(session, 'GUILD_CREATE', g);
  }

  #resume(conn: Conn, d: Record<string, unknown>): void {
    if (conn.session !== undefined) {
      conn.close(4005, 'Already authenticated');
      return;
    }
    this.#expire(Date.now());
    const session = this.#sessions.get(String(d.session_id));
    if (session === undefined || d.token !== this.#deps.botToken) {
      // d: false — the session cannot be resumed; the client must IDENTIFY anew.
      this.#stats.invalidated += 1;
      conn.send({ op: 9, d: false });
      return;
    }
    const seq = typeof d.seq === 'number' ? d.seq : 0;
    if (seq > session.seq) {
      conn.close(4007, 'Invalid seq');
      return;
    }
    const oldest = session.backlog[0]?.s ?? session.seq + 1;
    if (seq + 1 < oldest) {
      this.#sessions.delete(session.id);
      this.#stats.invalidated += 1;
      conn.send({ op: 9, d: false });
      return;
    }
    if (session.conn !== undefined && session.conn !== conn) session.conn.close(4000, 'Resumed');
    session.conn = conn;
    session.disconnectedAt = undefined;
    conn.session = session;
    for (const event of session.backlog) if (event.s > seq) conn.send({ op: 0, ...event });
    this.#stats.resumed += 1;
    this.#send(session, 'RESUMED', null);
  }

  #onClose(conn: Conn, code: number): void {
    this.#conns.delete(conn);
    const session = conn.session;
    if (session === undefined || session.conn !== conn) return;
    session.conn = undefined;
    session.disconnectedAt = Date.now();
    // A client closing with 1000/1001 ends its session; other codes keep it resumable.
    if (code === 1000 || code === 1001) this.#sessions.delete(session.id);
  }
}
