// Slack through Bolt: HTTP Events API (mounted on the bot's HTTP server) or Socket Mode. This
// adapter only translates: events become InboundMessages for the core, and SlackPort carries the
// core's replies back.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { boltLogger } from './bolt-logger.ts';
import { slackErrorCode } from './slack-errors.ts';
import {
  classifySlackEvent,
  type SlackEnvelope,
  type SlackMessageEvent,
  slackProjectId,
} from './slack-events.ts';
import { type SlackFileRef, SlackFiles } from './slack-files.ts';
import { SlackPort, slackContext } from './slack-port.ts';

export interface SlackAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
}

type SlackEvent = SlackMessageEvent & { files?: SlackFileRef[] };

export class SlackAdapter {
  readonly app: App;
  readonly port: SlackPort;
  private readonly d: SlackAdapterDeps;
  private readonly httpReceiver: HTTPReceiver | undefined;
  private readonly socketReceiver: SocketModeReceiver | undefined;
  private readonly files: SlackFiles;
  private botUserId: string | undefined;
  private stopping = false;

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
      // Nothing reads Bolt's conversation store, and its miss on every event builds an Error.
      convoStore: false,
    });
    this.files = new SlackFiles({
      client: this.app.client,
      source: {
        bearerToken: s.slackBotToken ?? '',
        allowedHosts: [...config.attachments.slackFileHosts, new URL(config.slack.apiUrl).host],
        maxBytes: config.attachments.maxFileBytes,
        timeoutMs: config.attachments.downloadTimeoutMs,
      },
      log: d.log,
    });
    this.port = new SlackPort({
      client: this.app.client,
      files: this.files,
      log: d.log.child({ platform: 'slack' }),
      streaming: config.slack.streaming,
      assistantStatus: config.slack.assistantStatus,
    });
    d.core.attach(this.port, {
      answerWithoutMention: config.slack.answerThreadsWithoutMention,
      projectNoun: 'workspace',
      updateIntervalMs: config.slack.updateIntervalMs,
      nativeStreaming: config.slack.streaming === 'auto',
      thinkingText: config.slack.thinkingText,
    });
    const listener = async ({ event, body }: { event: unknown; body: unknown }) => {
      await this.onEvent(body as SlackEnvelope, event as SlackEvent);
    };
    this.app.event('app_mention', listener);
    this.app.event('message', listener);
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

  private destination(ref: ThreadRef, envelope: SlackEnvelope, event: SlackEvent): Destination {
    return {
      ref,
      context: slackContext(
        envelope.team_id ?? event.team ?? '',
        event.user ?? '',
        event.channel_type === 'im',
      ),
    };
  }

  private async onEvent(envelope: SlackEnvelope, event: SlackEvent): Promise<void> {
    const botUserId = this.botUserId;
    if (!botUserId) return;
    const traceId = randomUUID();
    const { core } = this.d;
    const projectId = slackProjectId(envelope, event);
    const fromPerson = !event.bot_id && event.user !== botUserId;
    const files = event.files?.length && fromPerson ? await this.files.refs(event.files) : [];
    if (files.length > 0 && projectId) {
      // A file belongs to the thread it was posted in, or to the channel at its top level.
      const ref: ThreadRef = {
        platform: 'slack',
        projectId,
        channelId: event.channel,
        sessionId: event.thread_ts ?? event.ts,
      };
      core.receiveFiles({
        ref,
        to: this.destination(ref, envelope, event),
        where: event.thread_ts ? 'session' : 'channel',
        messageId: event.ts,
        text: event.text ?? '',
        files,
        traceId,
      });
    }
    const c = classifySlackEvent(envelope, event, botUserId);
    if (!c) {
      core.skipped('slack', event.ts);
      return;
    }
    // Not awaited: the turn can take minutes, and the core owns it (it never rejects for the user's
    // sake; anything unexpected is logged here).
    void core
      .receiveMessage({
        ref: c.ref,
        to: { ref: c.ref, context: slackContext(c.teamId, c.principal, c.isDirect) },
        principal: c.principal,
        text: c.text,
        messageId: c.messageId,
        receivedAt: Date.now(),
        traceId,
        addressed: c.addressed,
        // Slack retries an event it thinks was missed (same event_id); one message can also arrive
        // under two events (same ts).
        dedupe: [
          ...(envelope.event_id ? [`slack:event:${envelope.event_id}`] : []),
          `slack:msg:${c.ref.projectId}:${c.ref.channelId}:${c.messageId}`,
        ],
        files,
      })
      .catch((err: unknown) => this.d.log.error({ err, trace_id: traceId }, 'slack event failed'));
  }
}
