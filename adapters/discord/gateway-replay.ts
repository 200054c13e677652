// RESUME of a gateway session another process held: one WebSocket to the session's resume URL,
// HELLO → RESUME (op 6: token, session_id, seq) → Discord sends every event it dispatched to the
// session since `seq`, then RESUMED; or INVALID_SESSION (op 9, d: false) when the session is gone
// (past its resume window, or unknown). discord.js's Client cannot start from a resumed session (it
// builds its caches from READY), so this runs beside the Client's own new session and hands the
// replayed events to it.
import type { GatewaySessionInfo } from '../../src/model/gateway-session.ts';

export interface GatewayPacket {
  t: string;
  s: number;
  d: unknown;
}

export type ReplayOutcome =
  | { status: 'resumed'; replayed: number }
  | { status: 'invalid' }
  | { status: 'failed'; reason: string };

export interface ReplayOptions {
  info: GatewaySessionInfo;
  token: string;
  /** Every event of the session after `info.sequence`, in order, until `close`. */
  onDispatch: (packet: GatewayPacket) => void;
  /** Gives up (outcome `failed`) when RESUMED has not come by then. */
  timeoutMs: number;
}

export interface Replay {
  readonly outcome: Promise<ReplayOutcome>;
  /** Ends the connection and with it the session (close code 1000): it has served its purpose. */
  close(): void;
}

export function resumeSession(o: ReplayOptions): Replay {
  const url = new URL(o.info.resumeURL);
  url.searchParams.set('v', '10');
  url.searchParams.set('encoding', 'json');
  const ws = new WebSocket(url);
  let seq = o.info.sequence;
  let replayed = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  let settle: (r: ReplayOutcome) => void = () => undefined;
  const outcome = new Promise<ReplayOutcome>((resolve) => {
    settle = (r) => {
      clearTimeout(timer);
      resolve(r);
    };
  });
  const timer = setTimeout(() => {
    settle({ status: 'failed', reason: `no RESUMED within ${o.timeoutMs} ms` });
    end();
  }, o.timeoutMs);
  timer.unref();
  const send = (payload: unknown) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
  };
  const end = () => {
    clearInterval(heartbeat);
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
  };
  ws.addEventListener('message', (ev) => {
    let p: { op?: number; t?: string | null; s?: number | null; d?: unknown };
    try {
      p = JSON.parse(String(ev.data)) as typeof p;
    } catch {
      return;
    }
    switch (p.op) {
      case 10: {
        const every = (p.d as { heartbeat_interval?: number } | null)?.heartbeat_interval ?? 41_250;
        heartbeat = setInterval(() => send({ op: 1, d: seq }), every);
        heartbeat.unref();
        send({ op: 6, d: { token: o.token, session_id: o.info.sessionId, seq: o.info.sequence } });
        return;
      }
      case 1:
        send({ op: 1, d: seq });
        return;
      case 9:
        settle({ status: 'invalid' });
        end();
        return;
      case 7:
        settle({ status: 'failed', reason: 'Discord asked to reconnect during the replay' });
        end();
        return;
      case 0: {
        if (typeof p.s === 'number') seq = Math.max(seq, p.s);
        if (p.t === 'RESUMED') {
          settle({ status: 'resumed', replayed });
          return;
        }
        if (typeof p.t !== 'string' || typeof p.s !== 'number') return;
        replayed += 1;
        o.onDispatch({ t: p.t, s: p.s, d: p.d });
        return;
      }
      default:
        return;
    }
  });
  ws.addEventListener('close', (ev) => {
    clearInterval(heartbeat);
    settle({ status: 'failed', reason: `connection closed (${ev.code})` });
  });
  ws.addEventListener('error', () => {
    settle({ status: 'failed', reason: 'connection error' });
  });
  return { outcome, close: end };
}
