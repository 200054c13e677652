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
import type { PlatformGroupSink } from '../../src/model/platform-groups.ts';
import type { Destination } from '../../src/model/platform-port.ts';
import type { Records } from '../../src/model/records.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import type { SealedRecords } from '../../src/model/sealed-records.ts';
import type { ThreadRef } from '../../src/model/thread-ref.ts';
import { boltLogger } from './bolt-logger.ts';
import { SlackAgentView } from './slack-agent-view.ts';
import { registerSlackCommand } from './slack-command.ts';
import { slackErrorCode } from './slack-errors.ts';
import {
  classifySlackChange,
  classifySlackEvent,
  projectIdOf,
  type SlackChangeEvent,
  type SlackEnvelope,
  type SlackMessageEvent,
  slackProjectId,
} from './slack-events.ts';
import { type SlackFileRef, SlackFiles } from './slack-files.ts';
import { SlackGroupSync, type SubteamEvent } from './slack-groups.ts';
import {
  installationKeyOf,
  type RenewalClaims,
  type SlackCredentialSource,
  type SlackCredentials,
  SlackInstallations,
} from './slack-installations.ts';
import { SlackInteractions } from './slack-interactions.ts';
import { oauthReceiver } from './slack-oauth-receiver.ts';
import { MRKDWN_LIMIT, SlackPort, slackContext } from './slack-port.ts';

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

type SlackEvent = SlackMessageEvent & { files?: SlackFileRef[] };

/** What Bolt's authorize put in a listener's context: this workspace's bot. */
interface BotContext {
  botToken?: string;
  botUserId?: string;
  botId?: string;
}

/** Single-workspace mode: the token from the environment, the bot's ids from auth.test. */
class FixedCredentials implements SlackCredentialSource {
  creds: SlackCredentials;
  constructor(token: string) {
    this.creds = { token, botUserId: undefined, botId: undefined };
  }
  async forProject(): Promise<SlackCredentials> {
    return this.creds;
  }
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
  private readonly groupSync: SlackGroupSync | undefined;
  /** Workspaces whose user groups are synced on the schedule (seen in events, or the token's). */
  private readonly groupWorkspaces = new Set<string>();
  private groupTimer: NodeJS.Timeout | undefined;
  private readonly agentView: SlackAgentView;

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
    if (config.slackOAuth && !d.sealed) throw new Error('Slack OAuth mode needs sealed storage');
    // Token rotation: the client id and secret exchange a refresh token for a new bot token.
    this.installations =
      config.slackOAuth && d.sealed
        ? new SlackInstallations(
            d.sealed,
            d.claims
              ? {
                  claims: d.claims,
                  refresh: (refresh_token) =>
                    this.app.client.oauth.v2.access({
                      client_id: s.slackClientId ?? '',
                      client_secret: s.slackClientSecret ?? '',
                      grant_type: 'refresh_token',
                      refresh_token,
                    }),
                }
              : undefined,
          )
        : undefined;
    this.fixed = this.installations ? undefined : new FixedCredentials(s.slackBotToken ?? '');
    let receiver: HTTPReceiver | SocketModeReceiver;
    if (this.installations && d.sealed) {
      receiver = this.httpReceiver = oauthReceiver({
        config,
        logger,
        log: d.log,
        installations: this.installations,
        sealed: d.sealed,
        clientOptions,
      });
    } else if (config.slackTransport === 'socket') {
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
      ...(this.installations ? {} : { token: s.slackBotToken ?? '' }),
      receiver,
      clientOptions,
      logger,
      // Nothing reads Bolt's conversation store, and its miss on every event builds an Error.
      convoStore: false,
      extendedErrorHandler: true,
    });
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
      credentials: this.installations ?? (this.fixed as FixedCredentials),
      files: this.files,
      log: d.log.child({ platform: 'slack' }),
      streaming: config.slack.streaming,
      assistantStatus: config.slack.assistantStatus,
    });
    const interactions = new SlackInteractions({
      app: this.app,
      core: d.core,
      files: this.files,
      credentials: this.installations ?? (this.fixed as FixedCredentials),
      admins: config.slack.admins,
      log: d.log.child({ component: 'slack-interactions' }),
      noteUser: (user, project) => this.port.noteUser(user, project),
    });
    d.core.attach(
      this.port,
      {
        projectNoun: 'workspace',
        settingsAdmins: "workspace admins and owners, the channel's creator and the bot's admins",
        feedbackAdmins: "workspace admins and owners and the bot's admins",
        erasePreserves: (projectId) => [installationKeyOf(projectId)],
        updateIntervalMs: config.slack.updateIntervalMs,
        nativeStreaming: config.slack.streaming === 'auto',
        thinkingText: config.slack.thinkingText,
      },
      interactions,
    );
    const listener = async ({
      event,
      body,
      context,
    }: {
      event: unknown;
      body: unknown;
      context: BotContext;
    }) => {
      await this.onEvent(body as SlackEnvelope, event as SlackEvent, context);
    };
    this.app.event('app_mention', listener);
    this.app.event('message', listener);
    if (d.groups && config.knowledge.groupSync.enabled) {
      const credentials: SlackCredentialSource =
        this.installations ?? (this.fixed as FixedCredentials);
      this.groupSync = new SlackGroupSync({
        client: this.app.client,
        sink: d.groups,
        tokenFor: async (projectId) => (await credentials.forProject(projectId))?.token,
        log: d.log.child({ component: 'slack-groups' }),
      });
      for (const type of ['subteam_created', 'subteam_updated', 'subteam_members_changed']) {
        this.app.event(type, async ({ event, body }) => {
          const projectId = slackProjectId(body as SlackEnvelope, event as SlackMessageEvent);
          if (!projectId) return;
          await this.groupSync
            ?.onSubteamEvent(projectId, event as unknown as SubteamEvent)
            .catch((err: unknown) => this.groupSyncFailed(projectId, err));
        });
      }
    }
    registerSlackCommand({
      app: this.app,
      log: d.log,
      render: (md, limit) => this.render(md, limit),
      flows: interactions,
    });
    this.agentView = new SlackAgentView({
      app: this.app,
      records: d.records,
      log: d.log.child({ component: 'slack-agent-view' }),
    });
    this.app.shortcut(ASK_SHORTCUT, async ({ ack, body }) => {
      await ack();
      await this.onAskShortcut(body as unknown as AskShortcutBody).catch((err: unknown) =>
        d.log.error({ err, shortcut: ASK_SHORTCUT }, 'slack shortcut failed'),
      );
    });
    // Uninstalled, or the bot token revoked: the tokens go at once; Bolt skips authorize for these.
    this.app.event('app_uninstalled', async ({ body }) => {
      await this.forget(body as SlackEnvelope, 'app_uninstalled');
    });
    this.app.event('tokens_revoked', async ({ event, body }) => {
      if ((event.tokens.bot ?? []).length > 0) {
        await this.forget(body as SlackEnvelope, 'tokens_revoked');
      }
    });
    const onError = async ({
      error,
      body,
    }: {
      error: Error & { code?: string };
      body?: unknown;
    }): Promise<void> => {
      if (error.code === 'slack_bolt_authorization_error') {
        // An event from a workspace the app is not installed in (any more): acknowledged and
        // dropped, so Slack does not retry it and nobody is answered with a token that is gone.
        const b = body as { team_id?: string; event?: { ts?: string } } | undefined;
        d.log.info(
          { team: b?.team_id },
          'slack event from a workspace without an installation ignored',
        );
        if (b?.event?.ts) d.core.skipped('slack', b.event.ts);
        return;
      }
      d.log.error({ err: error }, 'slack listener error');
    };
    // extendedErrorHandler: Bolt passes the body too.
    this.app.error(onError);
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

  /** Removes a workspace's (or an org's) installation: its tokens stop working here at once. */
  private async forget(envelope: SlackEnvelope, why: string): Promise<void> {
    const b = envelope as SlackEnvelope & {
      authorizations?: { is_enterprise_install?: boolean }[];
    };
    const orgWide = b.authorizations?.[0]?.is_enterprise_install === true;
    const removed = await this.installations?.remove(b.enterprise_id, b.team_id, orgWide);
    this.d.log.info(
      { team: b.team_id, enterprise: b.enterprise_id, removed: removed ?? false, why },
      'slack installation removed',
    );
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
    this.listening = opts.listen !== false;
    if (!this.fixed) {
      this.d.log.info({ mode: 'oauth' }, 'slack ready: workspaces install at /slack/install');
      return;
    }
    const auth = await this.client.auth
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
    if (auth.team_id) {
      this.watchGroups(projectIdOf(auth.team_id, auth.enterprise_id));
    }
    if (this.socketReceiver && this.listening) await this.socketReceiver.start();
  }

  /** Syncs a workspace's user groups now (in the background) and then on the schedule. */
  private watchGroups(projectId: string): void {
    const sync = this.groupSync;
    if (!sync || this.groupWorkspaces.has(projectId)) return;
    this.groupWorkspaces.add(projectId);
    void this.syncGroups(projectId);
    if (!this.groupTimer) {
      const every = this.d.config.knowledge.groupSync.intervalMinutes * 60_000;
      this.groupTimer = setInterval(() => {
        for (const p of this.groupWorkspaces) void this.syncGroups(p);
      }, every);
      this.groupTimer.unref();
    }
  }

  /** One workspace's user groups, read again; a failure is logged and the next run retries. */
  syncGroups(projectId: string): Promise<void> {
    const sync = this.groupSync;
    if (!sync) return Promise.resolve();
    const started = performance.now();
    return sync.syncWorkspace(projectId).then(
      (groups) =>
        this.d.log.info(
          { team: projectId, groups, ms: Math.round(performance.now() - started) },
          'slack user groups synced',
        ),
      (err: unknown) => this.groupSyncFailed(projectId, err),
    );
  }

  private groupSyncFailed(projectId: string, err: unknown): void {
    const code = slackErrorCode(err);
    this.d.log.warn(
      { team: projectId, code, err: code ? undefined : err },
      code === 'missing_scope'
        ? 'cannot read Slack user groups: the app needs the usergroups:read scope (adapters/slack/manifest.yaml); reinstall it'
        : 'slack user group sync failed; knowledge access keeps the last known groups until the next sync',
    );
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.groupTimer);
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

  private async onEvent(
    envelope: SlackEnvelope,
    event: SlackEvent,
    context: BotContext,
  ): Promise<void> {
    const botUserId = context.botUserId;
    const token = context.botToken;
    if (!botUserId || !token) return;
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
    if (projectId) this.watchGroups(projectId);
    const fromPerson = !event.bot_id && event.user !== botUserId;
    if (fromPerson && event.user && projectId) this.port.noteUser(event.user, projectId);
    const files =
      event.files?.length && fromPerson ? await this.files.refs(event.files, token) : [];
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
    // In the app's DM (an agent-view thread, or agent messaging): the channel the person looks at.
    const { thread: agent, viewing } = c.isDirect
      ? await this.agentView.viewing(c.ref.projectId, event.channel, event.thread_ts, c.principal)
      : {};
    const to: Destination = {
      ref: c.ref,
      context: slackContext(c.teamId, c.principal, c.isDirect),
    };
    // An agent thread's first question names it. Set on arrival, not after the answer: with split
    // roles the answer comes from a worker this process never hears from.
    if (agent && !agent.titled) {
      void this.agentView
        .title(c.ref.projectId, event.channel, c.ref.sessionId, c.text, token)
        .catch((err: unknown) => this.d.log.warn({ err }, 'agent thread title failed'));
    }
    // Not awaited where the turn runs here: it can take minutes, and the core owns it (it never
    // rejects for the user's sake; anything unexpected is logged here). Queued, it takes ms.
    const handled = core
      .receiveMessage({
        ref: c.ref,
        to,
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
        ...(viewing
          ? {
              viewedChannel: this.port.viewedChannel(to, viewing, c.principal, c.messageId),
              platformIds: {
                viewedChannel: viewing,
                viewer: c.principal,
                viewedBefore: c.messageId,
              },
            }
          : {}),
      })
      .catch((err: unknown) => this.d.log.error({ err, trace_id: traceId }, 'slack event failed'));
    if (this.d.config.scale.role !== 'all') await handled;
  }

  /**
   * "Ask threadmind about this" on a message: a question about it, answered in the message's
   * thread (a top-level message gets one under it); the thread read brings the message and files.
   */
  private async onAskShortcut(b: AskShortcutBody): Promise<void> {
    const team = b.team?.id;
    if (!team || !b.message?.ts) return;
    const projectId = projectIdOf(team, b.enterprise?.id);
    const channel = b.channel.id;
    const ref: ThreadRef = {
      platform: 'slack',
      projectId,
      channelId: channel,
      sessionId: b.message.thread_ts ?? b.message.ts,
    };
    this.port.noteUser(b.user.id, projectId);
    const author = b.message.user ?? b.message.bot_id ?? '';
    if (b.message.user) this.port.noteUser(b.message.user, projectId);
    const traceId = randomUUID();
    void this.d.core
      .askAbout({
        ref,
        to: { ref, context: slackContext(team, b.user.id, channel.startsWith('D')) },
        principal: b.user.id,
        about: { authorId: author, at: Math.round(Number(b.message.ts) * 1000) },
        requestId: b.action_ts,
        traceId,
        dedupe: [`slack:shortcut:${projectId}:${b.action_ts}:${b.user.id}`],
      })
      .catch((err: unknown) =>
        this.d.log.error({ err, trace_id: traceId }, 'slack shortcut failed'),
      );
  }

  /** Bot text for an ephemeral reply, rendered like every other post. */
  private render(markdown: string, limit = MRKDWN_LIMIT): string {
    return RenderedText.render(this.port.format, markdown, 'message', limit)
      .map((r) => r.text)
      .join('\n');
  }
}

/** callback_id of the "Ask threadmind about this" message shortcut (manifest.yaml). */
export const ASK_SHORTCUT = 'threadmind_ask_about';

interface AskShortcutBody {
  action_ts: string;
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  user: { id: string };
  channel: { id: string };
  message?: { ts: string; thread_ts?: string; user?: string; bot_id?: string };
}
