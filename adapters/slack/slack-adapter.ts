// Slack through Bolt: HTTP Events API (mounted on the bot's HTTP server) or Socket Mode.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Ingestor } from '../../src/attachments/ingest.ts';
import type { Config } from '../../src/config/schema.ts';
import type { TurnRunner } from '../../src/core/turn-runner.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Metrics } from '../../src/log/metrics.ts';
import { ownersOf, sessionKey } from '../../src/model/thread-ref.ts';
import type { SessionHistory } from '../../src/store/session-history.ts';
import type { Store } from '../../src/store/store.ts';
import { boltLogger } from './bolt-logger.ts';
import type { SlackCapabilities } from './slack-answer.ts';
import { slackErrorCode } from './slack-errors.ts';
import {
  type Classified,
  classifySlackEvent,
  type SlackEnvelope,
  type SlackMessageEvent,
} from './slack-events.ts';
import { SHARE_REQUEST, type SlackFileRef, SlackFiles } from './slack-files.ts';
import { SlackReply } from './slack-reply.ts';

export interface SlackAdapterDeps {
  config: Config;
  runner: TurnRunner;
  store: Store;
  history: SessionHistory;
  metrics: Metrics;
  log: Logger;
  /** File ingestion; without it files are ignored. */
  ingestor?: Ingestor;
}

/** "@threadmind summarize" (or summarise, tl;dr), alone in the message. */
const SUMMARIZE_REQUEST =
  /^(please\s+)?(summari[sz]e|tl;?dr)(\s+(this|the)(\s+thread)?)?\s*(please)?[.!?]*$/i;

const EMPTY_MENTION_HINT =
  'Hi! Ask me something in the same message, for example: “@threadmind what does this error mean?”';

export class SlackAdapter {
  readonly app: App;
  private readonly d: SlackAdapterDeps;
  private readonly httpReceiver: HTTPReceiver | undefined;
  private readonly socketReceiver: SocketModeReceiver | undefined;
  private readonly caps: SlackCapabilities = { streaming: undefined, assistantStatus: undefined };
  private botUserId: string | undefined;
  private stopping = false;
  private readonly files: SlackFiles | undefined;

  constructor(d: SlackAdapterDeps) {
    this.d = d;
    const { config } = d;
    const s = config.secrets;
    const logger = boltLogger(d.log.child({ component: 'slack' }));
    const clientOptions = {
      slackApiUrl: config.slack.apiUrl,
      retryConfig: {
        retries: config.slack.maxRetries,
        factor: 2,
        minTimeout: 500,
        maxTimeout: 10_000,
      },
    };
    let receiver: HTTPReceiver | SocketModeReceiver;
    if (config.slackTransport === 'socket') {
      receiver = this.socketReceiver = new SocketModeReceiver({
        appToken: s.slackAppToken ?? '',
        logger,
        installerOptions: { clientOptions },
      });
    } else {
      receiver = this.httpReceiver = new HTTPReceiver({
        signingSecret: s.slackSigningSecret ?? '',
        logger,
        // The bot's own server listens; this receiver only verifies and dispatches.
        port: 0,
        unhandledRequestTimeoutMillis: 3001,
      });
    }
    this.app = new App({
      token: s.slackBotToken ?? '',
      receiver,
      clientOptions,
      logger,
    });
    this.files = d.ingestor
      ? new SlackFiles({ client: this.app.client, ingestor: d.ingestor, config, log: d.log })
      : undefined;
    this.app.event('app_mention', async ({ event, body }) => {
      await this.onEvent(
        body as SlackEnvelope,
        event as unknown as SlackMessageEvent & { files?: SlackFileRef[] },
      );
    });
    this.app.event('message', async ({ event, body }) => {
      await this.onEvent(
        body as SlackEnvelope,
        event as unknown as SlackMessageEvent & { files?: SlackFileRef[] },
      );
    });
    this.app.error(async (err) => {
      d.log.error({ err }, 'slack listener error');
    });
  }

  /**
   * POST /slack/events, for the bot's HTTP server (HTTP mode only). While shutting down it answers
   * 503, so Slack delivers the event again (to this replica after a restart, or to another one)
   * instead of it being acknowledged and lost.
   */
  get eventsRoute(): ((req: HttpRequest, res: ServerResponse) => void) | undefined {
    const listener = this.httpReceiver?.requestListener;
    if (!listener) return undefined;
    return (req, res) => {
      if (this.stopping) {
        req.resume();
        res.writeHead(503, { 'retry-after': '5' }).end();
        return;
      }
      listener(req, res);
    };
  }

  private get client(): WebClient {
    return this.app.client;
  }

  async start(): Promise<void> {
    const auth = await this.client.auth.test().catch((err: unknown) => {
      throw new Error(
        `Slack refused SLACK_BOT_TOKEN (${slackErrorCode(err) ?? (err instanceof Error ? err.message : String(err))}); check the Bot User OAuth Token and SLACK_API_URL`,
        { cause: err },
      );
    });
    this.botUserId = auth.user_id;
    this.d.log.info(
      { team: auth.team_id, bot_user: auth.user_id, mode: this.d.config.slackTransport },
      'slack connected',
    );
    if (this.socketReceiver) await this.socketReceiver.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.socketReceiver) await this.socketReceiver.stop();
  }

  private async onEvent(
    envelope: SlackEnvelope,
    event: SlackMessageEvent & { files?: SlackFileRef[] },
  ): Promise<void> {
    const botUserId = this.botUserId;
    if (!botUserId) return;
    const traceId = randomUUID();
    let log = this.d.log.child({
      trace_id: traceId,
      platform: 'slack',
      event_id: envelope.event_id,
    });
    const wantsShare = event.type === 'app_mention' && SHARE_REQUEST.test(event.text ?? '');
    if (
      this.files &&
      event.files?.length &&
      !event.bot_id &&
      event.user !== botUserId &&
      !SHARE_REQUEST.test(event.text ?? '')
    ) {
      const where = this.files.ownerFor(envelope, event);
      // In the background: the ingestor owns it, tools wait for it, the poster hears about failures.
      if (where)
        this.files
          .ingestAll(where.owner, event, log)
          .catch((err: unknown) => log.error({ err }, 'file ingestion failed'));
    }
    const c = classifySlackEvent(envelope, event, botUserId);
    if (!c) return;
    const key = sessionKey(c.ref);
    log = log.child({ session: key });
    if (c.onlyIfParticipating) {
      if (!this.d.config.slack.answerThreadsWithoutMention || c.text === '') return;
      if (!(await this.isParticipating(key))) return;
    }
    if (!(await this.claimOnce(envelope, c))) {
      this.d.metrics.duplicateEvents.inc({ platform: 'slack' });
      log.debug('duplicate event ignored');
      return;
    }
    if (wantsShare && this.files) {
      await this.shareWithWorkspace(c, event, log);
      return;
    }
    await this.d.store.kv.set(`participating:${key}`, true);
    const reply = new SlackReply({
      client: this.client,
      target: {
        channel: c.ref.channelId,
        threadTs: c.ref.sessionId,
        teamId: c.teamId,
        userId: c.principal,
        isDirect: c.isDirect,
      },
      caps: this.caps,
      log,
      streaming: this.d.config.slack.streaming,
      assistantStatus: this.d.config.slack.assistantStatus,
      thinkingText: this.d.config.slack.thinkingText,
      updateIntervalMs: this.d.config.slack.updateIntervalMs,
    });
    if (c.text === '') {
      await reply.postMessage(EMPTY_MENTION_HINT);
      return;
    }
    const incoming = {
      ref: c.ref,
      principal: c.principal,
      text: c.text,
      messageId: c.messageId,
      receivedAt: Date.now(),
      traceId,
    };
    if (SUMMARIZE_REQUEST.test(c.text)) {
      void this.d.runner.summarize(incoming, reply);
      return;
    }
    // Not awaited: Bolt has acked already and the turn can take minutes. The runner owns the
    // promise, catches everything and tells the user.
    void this.d.runner.submit(incoming, reply);
  }

  private async shareWithWorkspace(
    c: Classified,
    event: SlackMessageEvent & { files?: SlackFileRef[] },
    log: Logger,
  ): Promise<void> {
    const files = this.files;
    if (!files) return;
    const post = (text: string) =>
      this.client.chat.postMessage({ channel: c.ref.channelId, thread_ts: c.ref.sessionId, text });
    const { files: found, source } = await files.filesToShare(event);
    if (found.length === 0) {
      await post(
        'There is no file in your message or at the start of this thread to share. Attach the file to the message that asks me to share it.',
      );
      return;
    }
    const project = ownersOf(c.ref)[2];
    if (!project) return;
    const outcomes = await files.ingestAll(project, { ...source, files: found }, log);
    const shared = outcomes.flatMap((o) => (o.status === 'ready' ? [o.record.filename] : []));
    if (shared.length > 0) {
      await post(
        `Shared ${shared.join(', ')} with the whole workspace: anyone can ask me about ${shared.length > 1 ? 'them' : 'it'} in any channel.`,
      );
    } else if (outcomes.every((o) => o.status === 'duplicate')) {
      await post('That is already shared with the workspace.');
    }
  }

  private async isParticipating(key: string): Promise<boolean> {
    return (
      (await this.d.store.kv.get(`participating:${key}`)) === true ||
      (await this.d.history.exists(key))
    );
  }

  /**
   * Exactly one answer per message: Slack retries events it thinks were missed (same event_id), and
   * one mention arrives as both `message` and `app_mention` (different event_ids, same ts).
   */
  private async claimOnce(envelope: SlackEnvelope, c: Classified): Promise<boolean> {
    const ttl = this.d.config.store.dedupeTtlSeconds * 1000;
    if (
      envelope.event_id &&
      !(await this.d.store.claim(`event:slack:${envelope.event_id}`, 'seen', ttl))
    )
      return false;
    return this.d.store.claim(
      `msg:slack:${c.ref.projectId}:${c.ref.channelId}:${c.messageId}`,
      'seen',
      ttl,
    );
  }
}
