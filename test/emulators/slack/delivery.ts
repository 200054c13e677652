// Getting events to the app: over an open Socket Mode connection when there is one, else as
// signed HTTP POSTs to the events URL; plus Slack's redelivery policy for unacknowledged events.
import {
  buildEnvelope,
  type EnvelopeIdentity,
  type EnvelopeOptions,
  newEventId,
} from './event-envelope.ts';
import { isTimeout, postSigned, postSignedBody } from './http-delivery.ts';
import type { SocketModeServer } from './socket-mode.ts';
import type { DeliverOptions, DeliveryResult, RetryOptions } from './types.ts';

// Slack's deadline for the app's 2xx (or Socket Mode ack), and how often it redelivers.
const ACK_TIMEOUT_MS = 3000;
const MAX_RETRIES = 3;
// Messages whose events can still be redelivered (the oldest are forgotten, so a long run stays small).
const REDELIVERABLE = 1000;

interface Attempt {
  timeoutMs: number;
  retryNum?: number;
  retryReason?: string;
  badSignature?: boolean;
  timestampSkewSec?: number;
}

/** The installation an event for this team is addressed to, when it was installed through OAuth. */
export type InstallationLookup = (
  teamId: string,
  enterpriseId: string | undefined,
) => { botUserId: string; orgWide: boolean } | undefined;

export class Deliverer {
  eventsUrl: string | undefined;
  installationFor: InstallationLookup = () => undefined;
  /** Several receivers (replicas behind a load balancer): each delivery goes to one at random. */
  eventsUrls: string[] = [];
  readonly #ids: EnvelopeIdentity;
  readonly #signingSecret: string;
  readonly #socket: SocketModeServer;
  /** The envelopes first sent for each message ts, so Slack's retry of them can be replayed. */
  readonly #sentFor = new Map<string, Record<string, unknown>[]>();

  constructor(ids: EnvelopeIdentity, signingSecret: string, socket: SocketModeServer) {
    this.#ids = ids;
    this.#signingSecret = signingSecret;
    this.#socket = socket;
  }

  async deliverEvent(
    event: Record<string, unknown>,
    opts: DeliverOptions = {},
  ): Promise<DeliveryResult> {
    const envelope = buildEnvelope(this.#ids, event, this.#withInstallation(envelopeOptions(opts)));
    if (opts.retryNum === undefined) this.#remember(envelope);
    const attempt: Attempt = { timeoutMs: opts.ackTimeoutMs ?? ACK_TIMEOUT_MS };
    if (opts.retryNum !== undefined) attempt.retryNum = opts.retryNum;
    if (opts.retryReason !== undefined) attempt.retryReason = opts.retryReason;
    if (opts.badSignature !== undefined) attempt.badSignature = opts.badSignature;
    if (opts.timestampSkewSec !== undefined) attempt.timestampSkewSec = opts.timestampSkewSec;
    return this.#send(envelope, attempt);
  }

  /** An envelope exactly as given (a recorded one), once. */
  deliverEnvelope(
    envelope: Record<string, unknown>,
    timeoutMs = ACK_TIMEOUT_MS,
  ): Promise<DeliveryResult> {
    return this.#send(envelope, { timeoutMs });
  }

  /**
   * Slack's policy: redeliver the same envelope (same event_id) up to three times while the app
   * fails to answer 2xx in time. Slack spaces retries out (now, 1 min, 5 min); here they follow
   * at once. An `X-Slack-No-Retry: 1` answer stops them, as it does on Slack.
   */
  async deliverWithRetries(
    event: Record<string, unknown>,
    opts: RetryOptions = {},
  ): Promise<DeliveryResult[]> {
    const envelope = buildEnvelope(
      this.#ids,
      event,
      this.#withInstallation({ ...envelopeOptions(opts), eventId: opts.eventId ?? newEventId() }),
    );
    const timeoutMs = opts.ackTimeoutMs ?? ACK_TIMEOUT_MS;
    const results: DeliveryResult[] = [];
    let reason: string | undefined;
    for (let n = 0; n <= MAX_RETRIES; n++) {
      const attempt: Attempt = { timeoutMs };
      if (n > 0) attempt.retryNum = n;
      if (reason !== undefined) attempt.retryReason = reason;
      const r = await this.#send(envelope, attempt);
      results.push(r);
      if ((r.status >= 200 && r.status < 300) || r.headers['x-slack-no-retry'] === '1') break;
      reason = this.#retryReason(r);
    }
    return results;
  }

  /**
   * Slack's retry of every event it sent for the message with this ts: the same envelopes (same
   * event_id) again, with X-Slack-Retry-Num / X-Slack-Retry-Reason (or the Socket Mode retry fields).
   */
  async redeliver(
    ts: string,
    opts: { retryNum?: number; retryReason?: string; ackTimeoutMs?: number } = {},
  ): Promise<DeliveryResult[]> {
    const envelopes = this.#sentFor.get(ts);
    if (envelopes === undefined) throw new Error(`Slack emulator: no event was sent for ts ${ts}`);
    return Promise.all(
      envelopes.map((envelope) =>
        this.#send(envelope, {
          timeoutMs: opts.ackTimeoutMs ?? ACK_TIMEOUT_MS,
          retryNum: opts.retryNum ?? 1,
          retryReason: opts.retryReason ?? 'http_timeout',
        }),
      ),
    );
  }

  /**
   * A slash command or an interactivity payload: over Socket Mode an envelope of that type with
   * the payload object; over HTTP a signed form POST to the same URL the events go to (`form`).
   * Slack never retries these.
   */
  async deliverInteraction(
    type: 'slash_commands' | 'interactive',
    payload: Record<string, unknown>,
    form: string,
    timeoutMs = ACK_TIMEOUT_MS,
  ): Promise<DeliveryResult> {
    if (this.#socket.connected) return this.#socket.send(payload, { timeoutMs, type });
    if (this.eventsUrl === undefined) {
      throw new Error(
        'Slack emulator: nowhere to deliver the interaction; call setEventsUrl() or connect a Socket Mode client first',
      );
    }
    return postSignedBody(this.#target(this.eventsUrl), form, 'application/x-www-form-urlencoded', {
      signingSecret: this.#signingSecret,
      timeoutMs,
    });
  }

  #withInstallation(o: EnvelopeOptions): EnvelopeOptions {
    const found = this.installationFor(o.teamId ?? this.#ids.teamId, o.enterpriseId);
    return found === undefined
      ? o
      : { ...o, botUserId: found.botUserId, isEnterpriseInstall: found.orgWide };
  }

  get verificationToken(): string {
    return this.#ids.verificationToken;
  }

  #remember(envelope: Record<string, unknown>): void {
    const ts = (envelope.event as { ts?: unknown } | undefined)?.ts;
    if (typeof ts !== 'string') return;
    const sent = this.#sentFor.get(ts) ?? [];
    if (sent.some((e) => e.event_id === envelope.event_id)) return;
    sent.push(envelope);
    this.#sentFor.set(ts, sent);
    if (this.#sentFor.size > REDELIVERABLE) {
      const oldest = this.#sentFor.keys().next().value;
      if (oldest !== undefined) this.#sentFor.delete(oldest);
    }
  }

  async #send(envelope: Record<string, unknown>, attempt: Attempt): Promise<DeliveryResult> {
    if (this.#socket.connected) {
      const opts = { timeoutMs: attempt.timeoutMs, retryAttempt: attempt.retryNum ?? 0 };
      return this.#socket.send(envelope, { ...opts, retryReason: attempt.retryReason ?? '' });
    }
    if (this.eventsUrl === undefined) {
      throw new Error(
        'Slack emulator: nowhere to deliver the event; call setEventsUrl() or connect a Socket Mode client first',
      );
    }
    return postSigned(this.#target(this.eventsUrl), envelope, {
      signingSecret: this.#signingSecret,
      ...attempt,
    });
  }

  #target(single: string): string {
    if (this.eventsUrls.length === 0) return single;
    return this.eventsUrls[Math.floor(Math.random() * this.eventsUrls.length)] ?? single;
  }

  #retryReason(r: DeliveryResult): string {
    if (this.#socket.connected) return 'timeout';
    if (isTimeout(r)) return 'http_timeout';
    return r.status === 0 ? 'connection_failed' : 'http_error';
  }
}

function envelopeOptions(opts: { eventId?: string; teamId?: string; enterpriseId?: string }) {
  const out: { eventId?: string; teamId?: string; enterpriseId?: string } = {};
  if (opts.eventId !== undefined) out.eventId = opts.eventId;
  if (opts.teamId !== undefined) out.teamId = opts.teamId;
  if (opts.enterpriseId !== undefined) out.enterpriseId = opts.enterpriseId;
  return out;
}
