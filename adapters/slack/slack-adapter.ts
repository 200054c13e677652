// Slack through Bolt: HTTP Events API (mounted on the bot's HTTP server) or Socket Mode. This
// adapter only translates: events become InboundMessages for the core (slack-intake.ts), and
// SlackPort carries the core's replies back. This file puts the pieces together.
import type { IncomingMessage as HttpRequest, ServerResponse } from 'node:http';
import type { App, HTTPReceiver, SocketModeReceiver } from '@slack/bolt';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import type { Records } from '../../src/model/records.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { SealedRecords } from '../../src/model/sealed-records.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { SlackAgentView } from './slack-agent-view.ts';
import { createSlackApp, type FixedCredentials } from './slack-app.ts';
import { listenAppEvents } from './slack-app-events.ts';
import { registerSlackCommand } from './slack-command.ts';
import { slackErrorCode } from './slack-errors.ts';
import { SlackFiles } from './slack-files.ts';
import { SlackGroupWatch } from './slack-groups.ts';
import {
  installationKeyOf,
  type RenewalClaims,
  type SlackInstallations,
} from './slack-installations.ts';
import { SlackIntake } from './slack-intake.ts';
import { SlackInteractions } from './slack-interactions.ts';
import { MARKDOWN_LIMIT } from './slack-markdown.ts';
import { SlackPort } from './slack-port.ts';
import { projectIdOf } from './slack-source.ts';
import { answerUnknownInteractions } from './slack-unknown.ts';

export interface SlackAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  /** Sealed storage for installations; required when `config.slackOAuth`. */
  sealed?: SealedRecords;
  /** Store claims: one replica at a time renews a workspace's rotating token. */
  claims?: RenewalClaims;
  /** Where user group memberships go (knowledge access); absent: they are not synced. */
  groups?: PlatformGroupSink | undefined;
  /** The store's records: what each agent-view thread is looking at. */
  records: Records;
}

export class SlackAdapter {
  readonly app: App;
  readonly port: SlackPort;
  private readonly d: SlackAdapterDeps;
  private readonly httpReceiver: HTTPReceiver | undefined;
  private readonly socketReceiver: SocketModeReceiver | undefined;
  private readonly files: SlackFiles;
  /** Set in OAuth mode: the installed workspaces. */
  readonly installations: SlackInstallations | undefined;
  private readonly fixed: FixedCredentials | undefined;
  private stopping = false;
  private listening = false;
  private readonly groups: SlackGroupWatch;
  private readonly intake: SlackIntake;

  constructor(d: SlackAdapterDeps) {
    this.d = d;
    const { config } = d;
    const built = createSlackApp(d);
    this.app = built.app;
    this.httpReceiver = built.httpReceiver;
    this.socketReceiver = built.socketReceiver;
    this.installations = built.installations;
    this.fixed = built.fixed;
    this.files = new SlackFiles({
      client: this.app.client,
      source: {
        allowedHosts: [...config.attachments.slackFileHosts, new URL(config.slack.apiUrl).host],
        maxBytes: config.attachments.maxFileBytes,
        timeoutMs: config.attachments.downloadTimeoutMs,
      },
      log: d.log,
    });
    this.port = new SlackPort({
      client: this.app.client,
      credentials: built.credentials,
      files: this.files,
      log: d.log.child({ platform: 'slack' }),
      streaming: config.slack.streaming,
      assistantStatus: config.slack.assistantStatus,
    });
    const interactions = new SlackInteractions({
      app: this.app,
      core: d.core,
      files: this.files,
      credentials: built.credentials,
      log: d.log.child({ component: 'slack-interactions' }),
      noteUser: (user, project) => this.port.noteUser(user, project),
    });
    d.core.attach(
      this.port,
      {
        ...surfaceTexts.slack,
        admins: config.slack.admins,
        erasePreserves: (projectId) => [installationKeyOf(projectId)],
        updateIntervalMs: config.slack.updateIntervalMs,
        nativeStreaming: config.slack.streaming === 'auto',
        thinkingText: config.slack.thinkingText,
      },
      interactions,
    );
    const agentView = new SlackAgentView({
      app: this.app,
      records: d.records,
      log: d.log.child({ component: 'slack-agent-view' }),
    });
    this.groups = new SlackGroupWatch({ ...d, app: this.app, credentials: built.credentials });
    this.intake = new SlackIntake({
      config,
      core: d.core,
      log: d.log,
      port: this.port,
      files: this.files,
      agentView,
      watchGroups: (projectId) => this.groups.watchGroups(projectId),
    });
    this.intake.listen(this.app);
    registerSlackCommand({
      app: this.app,
      log: d.log,
      render: (md, limit) => this.render(md, limit),
      flows: interactions,
    });
    listenAppEvents({ app: this.app, core: d.core, log: d.log, installations: this.installations });
    // Last: whatever no listener above takes is still acknowledged.
    answerUnknownInteractions(this.app, d.log, (md) => this.render(md));
  }

  /** GET /slack/install and /slack/oauth_redirect (OAuth mode): Bolt's installer. */
  get installRoutes(): Map<string, (req: HttpRequest, res: ServerResponse) => void> {
    const listener = this.httpReceiver?.requestListener;
    const routes = new Map<string, (req: HttpRequest, res: ServerResponse) => void>();
    if (!this.installations || !listener) return routes;
    const redirect = this.d.config.slack.oauth.redirectUrl;
    routes.set('/slack/install', listener);
    routes.set(redirect ? new URL(redirect).pathname : '/slack/oauth_redirect', listener);
    return routes;
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
      this.intake.requestOpen(res);
      listener(req, res);
    };
  }

  /** `listen: false`: post only (a worker); events reach another process. */
  async start(opts: { listen?: boolean } = {}): Promise<void> {
    this.listening = opts.listen !== false;
    if (!this.fixed) {
      this.d.log.info({ mode: 'oauth' }, 'slack ready: workspaces install at /slack/install');
      return;
    }
    const auth = await this.app.client.auth
      .test({ token: this.fixed.creds.token })
      .catch((err: unknown) => {
        throw new Error(
          `Slack refused SLACK_BOT_TOKEN (${slackErrorCode(err) ?? (err instanceof Error ? err.message : String(err))}); check the Bot User OAuth Token and SLACK_API_URL`,
          { cause: err },
        );
      });
    this.fixed.creds = { ...this.fixed.creds, botUserId: auth.user_id, botId: auth.bot_id };
    this.d.log.info(
      { team: auth.team_id, bot_user: auth.user_id, mode: this.d.config.slackTransport },
      'slack connected',
    );
    if (auth.team_id) this.groups.watchGroups(projectIdOf(auth.team_id, auth.enterprise_id));
    if (this.socketReceiver && this.listening) await this.socketReceiver.start();
  }

  /** One workspace's user groups, read again; a failure is logged and the next run retries. */
  syncGroups(projectId: string): Promise<void> {
    return this.groups.syncGroups(projectId);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.groups.stop();
    if (this.socketReceiver && this.listening) await this.socketReceiver.stop();
  }

  /**
   * Bot text for a slash command's or an old button's ephemeral reply, rendered like every other
   * post, then as the reply's mrkdwn `text`.
   */
  private render(markdown: string, limit = MARKDOWN_LIMIT): string {
    return RenderedText.render(this.port.format, markdown, 'message', limit)
      .map((r) => markdownToMrkdwn(r.text))
      .join('\n');
  }
}
