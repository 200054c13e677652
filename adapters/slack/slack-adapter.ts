// Slack through Bolt: HTTP Events API (mounted on the bot's HTTP server) or Socket Mode. This
// adapter only translates: events become InboundMessages for the core, and SlackPort carries the
// core's replies back.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import {
  type AllMiddlewareArgs,
  App,
  HTTPReceiver,
  type SlackCommandMiddlewareArgs,
  type SlackViewMiddlewareArgs,
  SocketModeReceiver,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { boltLogger } from './bolt-logger.ts';
import { slackErrorCode } from './slack-errors.ts';
import {
  classifySlackChange,
  classifySlackEvent,
  type SlackChangeEvent,
  type SlackEnvelope,
  type SlackMessageEvent,
  slackProjectId,
} from './slack-events.ts';
import { type SlackFileRef, SlackFiles } from './slack-files.ts';
import { MRKDWN_LIMIT, SlackPort, slackContext } from './slack-port.ts';
import {
  type FormPlace,
  mayChangeSettings,
  patchFromState,
  SETTINGS_CALLBACK,
  settingsView,
} from './slack-settings.ts';

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
  private listening = false;

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
        // Split roles: acknowledged once queued (a few ms), so a message acknowledged before the
        // next one arrives is also numbered before it.
        processBeforeResponse: config.scale.role !== 'all',
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
      projectNoun: 'workspace',
      settingsAdmins: "workspace admins and owners, the channel's creator and the bot's admins",
      updateIntervalMs: config.slack.updateIntervalMs,
      nativeStreaming: config.slack.streaming === 'auto',
      thinkingText: config.slack.thinkingText,
    });
    const listener = async ({ event, body }: { event: unknown; body: unknown }) => {
      await this.onEvent(body as SlackEnvelope, event as SlackEvent);
    };
    this.app.event('app_mention', listener);
    this.app.event('message', listener);
    this.app.command('/threadmind', async (args) => {
      await this.onCommand(args);
    });
    this.app.view(SETTINGS_CALLBACK, async (args) => {
      await this.onSettingsSubmitted(args);
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

  /** `listen: false`: post only (a worker); events reach another process. */
  async start(opts: { listen?: boolean } = {}): Promise<void> {
    const auth = await this.client.auth.test().catch((err: unknown) => {
      throw new Error(
        `Slack refused SLACK_BOT_TOKEN (${slackErrorCode(err) ?? (err instanceof Error ? err.message : String(err))}); check the Bot User OAuth Token and SLACK_API_URL`,
        { cause: err },
      );
    });
    this.botUserId = auth.user_id;
    this.port.setIdentity(auth.user_id, auth.bot_id);
    this.d.log.info(
      { team: auth.team_id, bot_user: auth.user_id, mode: this.d.config.slackTransport },
      'slack connected',
    );
    this.listening = opts.listen !== false;
    if (this.socketReceiver && this.listening) await this.socketReceiver.start();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.socketReceiver && this.listening) await this.socketReceiver.stop();
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
    if (event.subtype === 'message_changed' || event.subtype === 'message_deleted') {
      const change = classifySlackChange(envelope, event as unknown as SlackChangeEvent, botUserId);
      // It waits for the thread's running turn (its lock); split roles acknowledge before that.
      const applied = change ? core.receiveChange({ ...change, traceId }) : undefined;
      if (this.d.config.scale.role === 'all') await applied;
      core.skipped('slack', event.ts);
      return;
    }
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
    // Not awaited where the turn runs here: it can take minutes, and the core owns it (it never
    // rejects for the user's sake; anything unexpected is logged here). Queued, it takes ms.
    const handled = core
      .receiveMessage({
        ref: c.ref,
        to: { ref: c.ref, context: slackContext(c.teamId, c.principal, c.isDirect) },
        principal: c.principal,
        text: c.text,
        messageId: c.messageId,
        receivedAt: Date.now(),
        traceId,
        addressed: c.addressed,
        topLevel: c.topLevel,
        mentionsOthers: c.mentionsOthers,
        // Slack retries an event it thinks was missed (same event_id); one message can also arrive
        // under two events (same ts).
        dedupe: [
          ...(envelope.event_id ? [`slack:event:${envelope.event_id}`] : []),
          `slack:msg:${c.ref.projectId}:${c.ref.channelId}:${c.messageId}`,
        ],
        files,
      })
      .catch((err: unknown) => this.d.log.error({ err, trace_id: traceId }, 'slack event failed'));
    if (this.d.config.scale.role !== 'all') await handled;
  }

  /** `/threadmind` opens the channel's settings form; `/threadmind settings` shows them. */
  private async onCommand({
    command,
    ack,
    respond,
    body,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    // Slack wants the acknowledgement within 3 s, and a modal within 3 s of the trigger.
    await ack();
    const projectId = slackProjectId(
      body as SlackEnvelope,
      {
        team: command.team_id,
      } as SlackMessageEvent,
    );
    const ephemeral = (text: string) =>
      respond({ response_type: 'ephemeral', text: this.render(text) });
    if (!projectId) return;
    const ref: ThreadRef = {
      platform: 'slack',
      projectId,
      channelId: command.channel_id,
      sessionId: command.channel_id,
    };
    const { core } = this.d;
    const words = command.text.trim().toLowerCase();
    try {
      if (words === 'settings' || words === 'show') {
        await ephemeral(await core.describeSettings(ref));
        return;
      }
      if (words !== '' && words !== 'edit') {
        await ephemeral(
          'Use `/threadmind` to change how I behave in this channel, or `/threadmind settings` to see it.',
        );
        return;
      }
      const allowed = await this.mayChange(command.user_id, command.channel_id);
      if (!allowed) {
        // Recorded like any refused change, so the audit trail shows the attempt.
        const r = await core.changeSettings(ref, { id: command.user_id, mayChange: false }, {});
        await ephemeral(r.text);
        return;
      }
      const form = await core.settingsForm(ref);
      await this.client.views.open({
        trigger_id: command.trigger_id,
        view: settingsView(form.effective.settings, form.models, {
          channel: command.channel_id,
          projectId,
        }) as unknown as Parameters<WebClient['views']['open']>[0]['view'],
      });
    } catch (err) {
      this.d.log.error({ err, command: command.command }, 'slash command failed');
      await ephemeral(
        '⚠️ Something went wrong with that command. The details are in the bot’s log.',
      ).catch(() => undefined);
    }
  }

  private async onSettingsSubmitted({
    ack,
    body,
    view,
  }: SlackViewMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    let place: FormPlace;
    try {
      place = JSON.parse(view.private_metadata) as FormPlace;
    } catch {
      await ack();
      return;
    }
    const user = body.user.id;
    const ref: ThreadRef = {
      platform: 'slack',
      projectId: place.projectId,
      channelId: place.channel,
      sessionId: place.channel,
    };
    const patch = patchFromState(
      view.state.values as unknown as Parameters<typeof patchFromState>[0],
    );
    const mayChange = await this.mayChange(user, place.channel).catch(() => false);
    const r = await this.d.core.changeSettings(ref, { id: user, mayChange }, patch);
    if (!r.ok && mayChange) {
      // An invalid value: the form stays open with the problem under the field.
      const block = patch.model !== undefined && /model/i.test(r.text) ? 'model' : 'instructions';
      await ack({ response_action: 'errors', errors: { [block]: r.text.slice(0, 150) } });
      return;
    }
    await ack();
    await this.client.chat
      .postEphemeral({ channel: place.channel, user, text: this.render(r.text) })
      .catch((err: unknown) => this.d.log.warn({ err }, 'could not confirm the settings change'));
  }

  private mayChange(user: string, channel: string): Promise<boolean> {
    return mayChangeSettings(this.client, this.d.config.slack.admins, user, channel);
  }

  /** Bot text for an ephemeral reply, rendered like every other post. */
  private render(markdown: string): string {
    return RenderedText.render(this.port.format, markdown, 'message', MRKDWN_LIMIT)
      .map((r) => r.text)
      .join('\n');
  }
}
