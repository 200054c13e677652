// A local, protocol-faithful Slack for tests: Web API under /api/, Socket Mode under /link/,
// and Events API deliveries to the app. The unmodified Bolt app talks to it through
// `clientOptions.slackApiUrl = emu.apiUrl`. Uploaded files are served under /files-pri/ (see
// file-http.ts), with a second local origin for downloads that redirect off the emulator.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  closeView,
  handleResponseUrl,
  type InteractionDeps,
  messageShortcut,
  pressButton,
  slashCommand,
  submitView,
} from './app-interactions.ts';
import {
  type AssistantDeps,
  AssistantThreads,
  changeAppContext,
  changeAssistantContext,
  startAssistantThread,
} from './assistant-threads.ts';
import { Deliverer } from './delivery.ts';
import { FaultQueue } from './faults.ts';
import { type FileHttpDeps, handleFileRequest, startOtherOrigin } from './file-http.ts';
import { FileStore } from './file-store.ts';
import { Interactivity } from './interactivity.ts';
import { MessageStore, toPublic } from './message-store.ts';
import type { ApiContext } from './methods/context.ts';
import { OAuthWorkspaces } from './oauth.ts';
import { replayPayload } from './replay.ts';
import { SocketModeServer } from './socket-mode.ts';
import type { ApiCall, SlackEmulator, SlackEmulatorOptions } from './types.ts';
import { deleteUserMessage, editUserMessage, type UserEditDeps } from './user-edits.ts';
import { postUserMessage } from './user-messages.ts';
import { clip, waitFor } from './wait-for.ts';
import { createWebApi } from './web-api.ts';

export { shownText } from './block-kit.ts';
export { DEFAULT_CHANNEL_CREATOR } from './methods/lookup.ts';
export type {
  ApiCall,
  ApproveInstallInput,
  ChannelType,
  DeleteUserMessageInput,
  DeliverOptions,
  DeliveryResult,
  EditUserMessageInput,
  EphemeralMessage,
  Fault,
  FileDownload,
  FileDownloadFault,
  FileRedirect,
  InstalledWorkspace,
  InteractionResult,
  OpenedView,
  ResponseUrlPost,
  RetryOptions,
  SlackEmulator,
  SlackEmulatorOptions,
  SlackFile,
  SlackFileShare,
  SlackMessage,
  SlackOption,
  SlackReaction,
  SlackUserFields,
  SlashCommandInput,
  SlashCommandResult,
  SubmitViewInput,
  SubmitViewResult,
  UploadFileInput,
  UserChangeResult,
  UserMessageInput,
  ViewStateValue,
  ViewValuesInput,
} from './types.ts';
export { viewState } from './view-state.ts';

const DEFAULT_WAIT_MS = 5000;

export async function startSlackEmulator(opts: SlackEmulatorOptions): Promise<SlackEmulator> {
  const teamId = opts.teamId ?? 'T0EMU00001';
  const ids = {
    teamId,
    teamDomain: 'threadmind-emulator',
    botUserId: opts.botUserId ?? 'U0EMUBOT01',
    botId: 'B0EMUBOT01',
    appId: 'A0EMUAPP01',
    botToken: opts.botToken ?? 'xoxb-1000000001-2000000002-emulatorbottoken',
    appToken: opts.appToken ?? 'xapp-1-A0EMUAPP01-3000000003-emulatorapptoken',
  };
  const store = new MessageStore();
  const calls: ApiCall[] = [];
  const faults = new FaultQueue();
  const socket = new SocketModeServer(ids.appId);
  let origin = '';
  const files = new FileStore(teamId, () => `http://${origin}`);
  const oauth = new OAuthWorkspaces(
    ids.appId,
    'threadmind-emulator',
    opts.clientId,
    opts.clientSecret,
  );
  const ctx: ApiContext = {
    ids,
    oauth,
    channelOwners: new Map(),
    store,
    channelTypes: new Map(),
    dmUsers: new Map(),
    users: new Map(),
    channelCreators: new Map(),
    channelMembers: new Map(),
    userGroups: new Map(),
    interactivity: new Interactivity(),
    apiLatencyMs: opts.apiLatencyMs ?? 0,
    files,
    streamingAvailable: true,
    feedbackButtonsAvailable: true,
    taskCardsAvailable: true,
    assistantStatusAvailable: true,
    assistantThreads: new AssistantThreads(),
    openSocketUrl: () => socket.newUrl(`ws://${origin}`),
  };
  const webApi = createWebApi(ctx, calls, faults, opts.botScopes?.join(','));
  const deliverer = new Deliverer(
    {
      teamId,
      botUserId: ids.botUserId,
      appId: ids.appId,
      verificationToken: randomBytes(12).toString('base64url'),
    },
    opts.signingSecret,
    socket,
  );
  deliverer.installationFor = (team, enterprise) => {
    const ws = oauth.forTeam(team, enterprise);
    return ws === undefined ? undefined : { botUserId: ws.botUserId, orgWide: ws.orgWide };
  };
  /** The events of an installation's end go to the app for that team even after its tokens die. */
  const installationEnd = (
    event: Record<string, unknown>,
    teamId: string,
    enterpriseId: string | undefined,
    ws: { botUserId: string; orgWide: boolean } | undefined,
  ) => {
    const prev = deliverer.installationFor;
    deliverer.installationFor = (t, e) =>
      t === teamId && e === enterpriseId && ws !== undefined
        ? { botUserId: ws.botUserId, orgWide: ws.orgWide }
        : prev(t, e);
    return deliverer
      .deliverEvent(event, { teamId, ...(enterpriseId !== undefined ? { enterpriseId } : {}) })
      .finally(() => {
        deliverer.installationFor = prev;
      });
  };

  let otherOrigin = '';
  const fileHttp: FileHttpDeps = {
    files,
    teamId,
    botToken: ids.botToken,
    origin: () => `http://${origin}`,
    otherOrigin: () => otherOrigin,
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname;
    if (path.startsWith('/api/') && path.length > '/api/'.length) {
      void webApi.handle(req, res, decodeURIComponent(path.slice('/api/'.length)));
      return;
    }
    if (path.startsWith('/commands/')) {
      void handleResponseUrl(req, res, `http://${origin}${path}`, path, ctx);
      return;
    }
    if (handleFileRequest(req, res, url, fileHttp)) return;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('upgrade', (req, sock, head) => socket.handleUpgrade(req, sock, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const other = await startOtherOrigin(fileHttp);
  otherOrigin = other.origin;

  const describeState = (): string => {
    const recent = calls.slice(-10).map((c) => {
      const outcome = c.ok ? 'ok' : `error=${c.error ?? '?'}`;
      return `  ${c.method} ${outcome} ${clip(JSON.stringify(c.args), 100)}`;
    });
    const msgs = store.all().map((m) => {
      const who = m.bot_id !== undefined ? 'bot' : (m.user ?? '?');
      const flags = `${m.thread_ts !== undefined ? ` thread=${m.thread_ts}` : ''}${m.streaming === true ? ' streaming' : ''}${m.files !== undefined ? ` files=${m.files.length}` : ''}`;
      return `  ${m.channel} ${m.ts}${flags} ${who}: ${clip(m.text)}`;
    });
    return [
      `last ${recent.length} of ${calls.length} API calls:`,
      ...(recent.length > 0 ? recent : ['  (none)']),
      `messages (${msgs.length}):`,
      ...(msgs.length > 0 ? msgs : ['  (none)']),
    ].join('\n');
  };

  const editDeps: UserEditDeps = { store, deliverer, teamId, channelTypes: ctx.channelTypes };
  const assistantDeps: AssistantDeps = {
    store,
    deliverer,
    threads: ctx.assistantThreads,
    teamId,
    botUserId: ids.botUserId,
    botId: ids.botId,
    channelTypes: ctx.channelTypes,
    dmUsers: ctx.dmUsers,
  };
  const interactionDeps: InteractionDeps = { ctx, deliverer, origin: () => `http://${origin}` };

  return {
    apiUrl: `http://${origin}/api/`,
    teamId,
    botUserId: ids.botUserId,
    botId: ids.botId,
    appId: ids.appId,
    botToken: ids.botToken,
    appToken: ids.appToken,
    calls,
    messages: (channel, threadTs) =>
      (threadTs === undefined ? store.topLevel(channel) : store.thread(channel, threadTs)).map(
        toPublic,
      ),
    allMessages: () => store.all().map(toPublic),
    waitFor: (probe, timeoutMs = DEFAULT_WAIT_MS) => waitFor(probe, timeoutMs, describeState),
    setEventsUrl: (url) => {
      deliverer.eventsUrl = url;
      deliverer.eventsUrls = [];
    },
    setEventsUrls: (urls) => {
      deliverer.eventsUrl = urls[0];
      deliverer.eventsUrls = [...urls];
    },
    postUserMessage: (m) => {
      const team = m.teamId ?? teamId;
      if (!ctx.channelOwners.has(m.channel)) {
        ctx.channelOwners.set(m.channel, { teamId: team, enterpriseId: m.enterpriseId });
      }
      return postUserMessage(
        {
          store,
          deliverer,
          files,
          teamId,
          botUserId: oauth.forTeam(team, m.enterpriseId)?.botUserId ?? ids.botUserId,
          channelTypes: ctx.channelTypes,
          dmUsers: ctx.dmUsers,
        },
        m,
      );
    },
    startAssistantThread: (t) => startAssistantThread(assistantDeps, t),
    changeAssistantContext: (c) => changeAssistantContext(assistantDeps, c),
    changeAppContext: (c) => changeAppContext(assistantDeps, c),
    assistantThread: (channel, ts) => {
      const t = ctx.assistantThreads.get(channel, ts);
      return t === undefined ? undefined : structuredClone(t);
    },
    deliverEvent: (event, o) => deliverer.deliverEvent(event, o),
    deliverWithRetries: (event, o) => deliverer.deliverWithRetries(event, o),
    redeliverEvents: (ts, o) => deliverer.redeliver(ts, o),
    failNext: (method, fault) => faults.add(method, fault),
    setStreamingAvailable: (on) => {
      ctx.streamingAvailable = on;
    },
    setFeedbackButtonsAvailable: (on) => {
      ctx.feedbackButtonsAvailable = on;
    },
    setTaskCardsAvailable: (on) => {
      ctx.taskCardsAvailable = on;
    },
    setAssistantStatusAvailable: (on) => {
      ctx.assistantStatusAvailable = on;
    },
    expireStream: (channel, ts) => {
      const m = store.find(channel, ts);
      if (m === undefined) throw new Error(`Slack emulator: no message ${channel}/${ts} to expire`);
      store.expire(m);
    },
    setStreamLifetimeMs: (ms) => {
      store.streamLifetimeMs = ms;
    },
    uploadFile: (f) => files.upload(f),
    fileDownloads: () => files.downloads.map((d) => ({ ...d })),
    otherOriginAuthHeaders: () => [...files.otherOriginAuth],
    setFileDownloadFault: (fileId, fault, times) => files.setFault(fileId, fault, times),
    setApiLatencyMs: (ms) => {
      ctx.apiLatencyMs = Math.max(0, ms);
    },
    callsTo: (method) => calls.filter((c) => c.method === method),
    editUserMessage: (e) => editUserMessage(editDeps, e),
    deleteUserMessage: (d) => deleteUserMessage(editDeps, d),
    setUser: (id, fields) => {
      const old = ctx.users.get(id) ?? {};
      const profile = { ...((old.profile ?? {}) as object), ...(fields.profile ?? {}) };
      ctx.users.set(id, { ...old, ...structuredClone(fields), profile });
    },
    setChannelCreator: (channel, userId) => {
      ctx.channelCreators.set(channel, userId);
    },
    setChannelMembers: (channel, userIds) => {
      ctx.channelMembers.set(channel, [...userIds]);
    },
    setUserGroup: async (id, g) => {
      const old = ctx.userGroups.get(id);
      const now = Math.floor(Date.now() / 1000);
      const rec = {
        id,
        handle: g.handle ?? old?.handle ?? id.toLowerCase(),
        name: g.name ?? old?.name ?? id,
        users: [...(g.users ?? old?.users ?? [])],
        dateDelete: g.disabled ? now : 0,
        dateUpdate: now,
      };
      ctx.userGroups.set(id, rec);
      if (g.notify === false) return undefined;
      const before = new Set(old?.users ?? []);
      const after = new Set(rec.users);
      // Slack: a new group is subteam_created, a member change subteam_members_changed, the rest
      // (renamed, disabled) subteam_updated.
      const subteam = {
        id,
        team_id: teamId,
        handle: rec.handle,
        name: rec.name,
        date_delete: rec.dateDelete,
        users: rec.users,
      };
      const added = rec.users.filter((u) => !before.has(u));
      const removed = [...before].filter((u) => !after.has(u));
      const event =
        old === undefined
          ? { type: 'subteam_created', subteam, event_ts: `${now}.000001` }
          : !g.disabled && (added.length > 0 || removed.length > 0)
            ? {
                type: 'subteam_members_changed',
                subteam_id: id,
                team_id: teamId,
                date_previous_update: old.dateUpdate,
                date_update: now,
                added_users: added,
                added_users_count: String(added.length),
                removed_users: removed,
                removed_users_count: String(removed.length),
                event_ts: `${now}.000002`,
              }
            : { type: 'subteam_updated', subteam, event_ts: `${now}.000003` };
      return deliverer.deliverEvent(event);
    },
    slashCommand: (c) => slashCommand(interactionDeps, c),
    responses: () => ctx.interactivity.responses.map((r) => structuredClone(r)),
    openedViews: () => ctx.interactivity.publicViews(),
    submitView: (v) => submitView(interactionDeps, v),
    closeView: (c) => closeView(interactionDeps, c),
    pressButton: (p) => pressButton(interactionDeps, p),
    replay: (kind, body, timeoutMs) => replayPayload(interactionDeps, kind, body, timeoutMs),
    messageShortcut: (m) => messageShortcut(interactionDeps, m),
    ephemeralMessages: () => ctx.interactivity.ephemerals.map((e) => structuredClone(e)),
    newTriggerId: (userId) => ctx.interactivity.newTrigger(userId),
    setTriggerLifetimeMs: (ms) => {
      ctx.interactivity.triggerLifetimeMs = ms;
    },
    oauthClient: { id: oauth.clientId, secret: oauth.clientSecret },
    setTokenRotation: (lifetimeSec) => {
      oauth.tokenLifetimeSec = lifetimeSec;
    },
    tokenRefreshes: () => oauth.refreshes,
    approveInstall: (url, o) => oauth.approve(url, o),
    installedWorkspace: (team, enterprise) => {
      const ws = oauth.forTeam(team, enterprise);
      if (ws === undefined) return undefined;
      const { revoked: _revoked, ...pub } = ws;
      return pub;
    },
    uninstallApp: (team, enterprise) => {
      const ws = oauth.revoke(team, enterprise);
      return installationEnd(
        { type: 'app_uninstalled', event_ts: store.nextTs() },
        team,
        enterprise,
        ws,
      );
    },
    revokeBotToken: (team, enterprise) => {
      const ws = oauth.revoke(team, enterprise);
      return installationEnd(
        {
          type: 'tokens_revoked',
          tokens: { oauth: [], bot: ws === undefined ? [] : [ws.botUserId] },
          event_ts: store.nextTs(),
        },
        team,
        enterprise,
        ws,
      );
    },
    close: async () => {
      await socket.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await other.close();
    },
  };
}
