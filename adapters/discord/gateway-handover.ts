// Gateway hand-over without loss (ARCHITECTURE.md, "Scaling out"). The active gateway keeps its
// session (id, resume URL, last sequence number) in the store, throttled, through @discordjs/ws's
// `updateSessionInfo` hook. The next holder of the lease connects with a new session of its own
// and RESUMEs the previous one beside it: Discord replays what it dispatched to that session since
// the saved number, and the replayed messages go through the Client like live ones (their delivery
// keys drop what was already queued). Past Discord's resume window the replay is refused and the
// log says which span of time may have been missed.
import { type Client, Events, SimpleShardingStrategy, type WebSocketOptions } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import type { GatewaySessionInfo, GatewaySessionStore } from '../../src/model/gateway-session.ts';
import { type GatewayPacket, type Replay, resumeSession } from './gateway-replay.ts';

/** The events worth replaying: messages. An interaction must be answered within 3 s, long past. */
const REPLAYED = new Set(['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE']);
const REPLAY_TIMEOUT_MS = 30_000;

type Manager = ConstructorParameters<typeof SimpleShardingStrategy>[0];
type SessionUpdate = Manager['options']['updateSessionInfo'];
/** What discord.js does with a dispatch (its WebSocketManager's private `handlePacket`). */
type PacketSink = { handlePacket?: (packet: unknown, shard: unknown) => boolean };

export interface HandoverDeps {
  sessions: GatewaySessionStore;
  saveMs: number;
  token: string;
  log: Logger;
}

export class GatewayHandover {
  private readonly d: HandoverDeps;
  private current: Omit<GatewaySessionInfo, 'savedAt'> | undefined;
  private saving: NodeJS.Timeout | undefined;
  private replay: Replay | undefined;
  private pending: GatewayPacket[] | undefined = [];
  private client: Client | undefined;
  private forwarded = 0;
  private readonly inflight = new Set<Promise<void>>();

  constructor(d: HandoverDeps) {
    this.d = d;
  }

  /** The Client's `ws` options: every session update passes through `note` too. */
  wsOptions(): Pick<WebSocketOptions, 'buildStrategy'> {
    return {
      buildStrategy: (manager) => {
        const options = manager.options as { updateSessionInfo: SessionUpdate };
        const own = options.updateSessionInfo;
        options.updateSessionInfo = (shardId, info) => {
          if (info) this.current = info;
          return own(shardId, info);
        };
        return new SimpleShardingStrategy(manager);
      },
    };
  }

  /**
   * Before the Client logs in: the previous holder's session, resumed now so its replay is ready
   * when the Client is. Replayed messages wait for the Client's caches (`Events.ClientReady`).
   */
  async begin(client: Client): Promise<void> {
    this.client = client;
    client.once(Events.ClientReady, () => this.flush());
    const previous = await this.d.sessions.load().catch((err: unknown) => {
      this.d.log.warn({ err }, 'could not read the previous gateway session; not resuming it');
      return undefined;
    });
    if (!previous) {
      this.pending = undefined;
      client.once(Events.ClientReady, () => this.startSaving());
      return;
    }
    const replay = resumeSession({
      info: previous,
      token: this.d.token,
      timeoutMs: REPLAY_TIMEOUT_MS,
      onDispatch: (p) => {
        if (!REPLAYED.has(p.t)) return;
        if (this.pending) this.pending.push(p);
        else this.forward(p);
      },
    });
    this.replay = replay;
    void this.finish(previous, replay, client);
  }

  /** A message being queued: a hand-over waits for it (its delivery key is claimed already). */
  track(handled: Promise<void>): void {
    this.inflight.add(handled);
    void handled.finally(() => this.inflight.delete(handled));
  }

  /**
   * Graceful hand-over: the session saved as it is now, then left open for the next holder, and
   * the messages still being queued here are queued before the process goes on to stop.
   */
  async handOver(): Promise<void> {
    this.stopSaving();
    await this.save();
    // A close code other than 1000/1001 keeps the session resumable (it is not a logout).
    const ws = (this.client?.ws as unknown as { _ws?: { destroy(o: object): Promise<void> } })?._ws;
    await ws?.destroy({ code: 4200, reason: 'handing over to the next gateway' });
    await Promise.allSettled([...this.inflight]);
  }

  /** Saving stops (the lease is another's, or the process ends). */
  stopSaving(): void {
    clearInterval(this.saving);
    this.saving = undefined;
    this.replay?.close();
  }

  private async finish(previous: GatewaySessionInfo, replay: Replay, client: Client) {
    const outcome = await replay.outcome;
    const ready = client.isReady()
      ? Promise.resolve()
      : new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await ready;
    replay.close();
    const log = this.d.log.child({ session: previous.sessionId, since_seq: previous.sequence });
    if (outcome.status === 'resumed') {
      log.info({ replayed: outcome.replayed }, 'previous gateway session resumed and replayed');
    } else {
      const from = new Date(previous.savedAt);
      const until = new Date();
      log.warn(
        {
          outcome: outcome.status,
          ...(outcome.status === 'failed' ? { reason: outcome.reason } : {}),
          missed_from: from.toISOString(),
          missed_until: until.toISOString(),
          missed_ms: until.getTime() - from.getTime(),
        },
        outcome.status === 'invalid'
          ? 'previous gateway session is past its resume window; messages sent while no gateway was connected may not be answered'
          : 'previous gateway session could not be resumed; messages sent while no gateway was connected may not be answered',
      );
    }
    this.startSaving();
  }

  /** The Client is ready: what was replayed so far goes first, in order, before its own backlog. */
  private flush(): void {
    const waiting = this.pending ?? [];
    this.pending = undefined;
    for (const p of waiting) this.forward(p);
  }

  private forward(p: GatewayPacket): void {
    const client = this.client;
    if (!client) return;
    if (this.forwarded === 0)
      this.d.log.info({ event: p.t, seq: p.s }, 'handing replayed gateway events to the client');
    this.forwarded += 1;
    const packet = { op: 0, t: p.t, s: p.s, d: p.d };
    client.emit(Events.Raw, packet, 0);
    const ws = client.ws as unknown as PacketSink;
    if (typeof ws.handlePacket !== 'function') {
      // A discord.js upgrade renamed what this relies on: say so loudly rather than drop quietly.
      if (this.forwarded === 1)
        this.d.log.error(
          'cannot hand replayed events to discord.js (no handlePacket); they are lost',
        );
      return;
    }
    ws.handlePacket(packet, client.ws.shards.get(0));
  }

  private startSaving(): void {
    if (this.saving) return;
    void this.save();
    this.saving = setInterval(() => void this.save(), this.d.saveMs);
    this.saving.unref();
  }

  private async save(): Promise<void> {
    const info = this.current;
    if (!info) return;
    await this.d.sessions
      .save({ ...info, savedAt: Date.now() })
      .catch((err: unknown) => this.d.log.warn({ err }, 'could not save the gateway session'));
  }
}
