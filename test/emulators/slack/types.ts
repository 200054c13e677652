// Public shapes of the Slack emulator. Kept apart from the implementation so tests can import
// the types without pulling in servers.

export interface SlackReaction {
  name: string;
  users: string[];
  count: number;
}

export interface SlackMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  /** `thread_broadcast` for a reply also sent to the channel; `tombstone` for a deleted thread parent. */
  subtype?: string;
  user?: string;
  bot_id?: string;
  text: string;
  blocks?: unknown[];
  markdown_text?: string;
  /** Non-text stream chunks (task_update, plan_update, blocks) in arrival order. */
  chunks?: unknown[];
  reactions?: SlackReaction[];
  streaming?: boolean;
  edited?: boolean;
  deleted?: boolean;
  /** Files shared with the message, as its events carried them. */
  files?: SlackFile[];
}

/** Where a file was shared: files.info's `shares.public[channel]` / `shares.private[channel]`. */
export interface SlackFileShare {
  reply_users: string[];
  reply_users_count: number;
  reply_count: number;
  ts: string;
  thread_ts?: string;
  channel_name?: string;
  team_id: string;
  share_user_id: string;
  source: string;
}

/** Slack's file object. files.info adds channels/groups/ims/shares; events leave them out. */
export interface SlackFile {
  id: string;
  created: number;
  timestamp: number;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  user_team: string;
  editable: boolean;
  size: number;
  /** 'hosted' for uploads; Slack Connect stubs say 'file_access' (then only files.info helps). */
  mode: string;
  is_external: boolean;
  external_type: string;
  is_public: boolean;
  public_url_shared: boolean;
  display_as_bot: boolean;
  username: string;
  /** Needs `Authorization: Bearer <bot token>`; without it Slack serves a sign-in page. */
  url_private: string;
  url_private_download: string;
  media_display_type: string;
  permalink: string;
  permalink_public: string;
  is_starred: boolean;
  has_rich_preview: boolean;
  file_access?: string;
  comments_count?: number;
  channels?: string[];
  groups?: string[];
  ims?: string[];
  shares?: {
    public?: Record<string, SlackFileShare[]>;
    private?: Record<string, SlackFileShare[]>;
  };
}

/**
 * How the file's URL answers an authorized GET: with the bytes, with a 302 to another path of
 * the emulator (auth still required there), or with a 302 to another origin (a second port)
 * that serves the bytes without auth, like a pre-signed CDN URL.
 */
export type FileRedirect = 'none' | 'same-origin' | 'other-origin';

export interface UploadFileInput {
  name: string;
  bytes: Uint8Array;
  /** Default: from the name's extension (application/octet-stream when unknown). */
  mimetype?: string;
  filetype?: string;
  title?: string;
  /** The uploader. Default: U0EMUUSER1. */
  user?: string;
  redirect?: FileRedirect;
}

/** Replaces the response that would carry the bytes. `slow` trickles them over 10 s. */
export type FileDownloadFault = 'http500' | 'reset' | 'slow';

export interface FileDownload {
  fileId: string;
  /** The request carried `Authorization: Bearer <bot token>`. */
  authorized: boolean;
  at: number;
  /** `url`: url_private(_download); `edge`: the same-origin redirect target; `other-origin`. */
  hop: 'url' | 'edge' | 'other-origin';
  /** What the emulator answered; only `bytes` delivered the file. */
  outcome: 'bytes' | 'sign_in' | 'redirect' | 'not_found' | FileDownloadFault;
}

export interface ApiCall {
  method: string;
  /** Arguments as the emulator understood them: JSON-valued fields decoded, token left out. */
  args: Record<string, unknown>;
  at: number;
  status: number;
  ok: boolean;
  error?: string;
  /** The workspace whose bot token made the call (an installed one's team, or the default team). */
  teamId?: string;
}

/** A person approves the app in a workspace (Slack's authorize page). */
export interface ApproveInstallInput {
  teamId: string;
  enterpriseId?: string;
  /** An org-wide install for the whole Enterprise Grid org (needs enterpriseId). */
  orgWide?: boolean;
  /** The installer. Default: U0EMUINST1. */
  userId?: string;
  /** Used when the authorize URL has no redirect_uri (the app's only configured one). */
  redirectUri?: string;
}

/** A workspace (or an org, when orgWide) where the app was installed through OAuth. */
export interface InstalledWorkspace {
  teamId: string;
  enterpriseId: string | undefined;
  orgWide: boolean;
  botUserId: string;
  botId: string;
  botToken: string;
}

export interface DeliveryResult {
  /** HTTP status of the app's answer; 200 for a Socket Mode ack; 0 when nothing came back in time. */
  status: number;
  body: string;
  elapsedMs: number;
  headers: Record<string, string>;
  /** Why nothing came back (timeout, refused connection), when status is 0. */
  error?: string;
}

export type ChannelType = 'channel' | 'im' | 'group';

export interface UserMessageInput {
  channel: string;
  user: string;
  text: string;
  thread_ts?: string;
  channelType?: ChannelType;
  mention?: boolean;
  teamId?: string;
  enterpriseId?: string;
  /** Shared with the message: the `message` event becomes subtype file_share with `files`. */
  files?: SlackFile[];
  /** The app_mention leaves `files` out (Slack sometimes does): the bot must ask files.info. */
  mentionWithoutFiles?: boolean;
  /** A thread reply also sent to the channel (subtype thread_broadcast); needs thread_ts. */
  broadcast?: boolean;
}

export interface AssistantThreadInput {
  /** The person's DM with the app (`D…`). */
  channel: string;
  user: string;
  /** The channel they are looking at when they open the pane. */
  viewing?: string;
  enterpriseId?: string;
}

export interface AssistantContextInput {
  channel: string;
  threadTs: string;
  /** The channel they look at now; undefined: none (the event's context has no channel_id). */
  viewing?: string;
  enterpriseId?: string;
}

/** What the person looks at beside their DM with the app (app_context_changed's entities). */
export interface AppContextInput {
  /** The person's DM with the app. */
  channel: string;
  user: string;
  viewing?: string;
  /** A message they opened (a message_context entity). */
  message?: { channel: string; ts: string };
  canvas?: string;
  enterpriseId?: string;
}

/** An agent-view thread as the app left it. */
export interface AssistantThreadState {
  user: string;
  /** The last assistant.threads.setSuggestedPrompts. */
  prompts: { title: string; message: string }[];
  promptsTitle?: string;
  /** Every assistant.threads.setTitle, in order. */
  titles: string[];
}

export interface EditUserMessageInput {
  channel: string;
  ts: string;
  text: string;
}

export interface DeleteUserMessageInput {
  channel: string;
  ts: string;
}

/** What `message_changed` / `message_deleted` delivery returns. */
export interface UserChangeResult {
  /** The event's own ts (the edit's `edited.ts`); not the message's ts. */
  eventTs: string;
  /** The event as delivered (`event` of the envelope). */
  event: Record<string, unknown>;
  deliveries: DeliveryResult[];
}

/** users.info fields merged over the generated user (profile merged key by key). */
export interface SlackUserFields {
  name?: string;
  real_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  tz?: string;
  profile?: {
    display_name?: string;
    real_name?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** An interaction from a workspace inside an Enterprise Grid org (see grid-origin.ts). */
export interface GridOrigin {
  enterpriseId: string;
  /**
   * `full` (default): `enterprise` and `team.enterprise_id`; `team-only`: the org named only in
   * `team.enterprise_id`; `org-wide`: an org-wide install's `team: null`.
   */
  shape?: 'full' | 'team-only' | 'org-wide';
}

export interface SlashCommandInput {
  /** With its slash, e.g. '/threadmind'. */
  command: string;
  text?: string;
  user: string;
  channel: string;
  teamId?: string;
  enterpriseId?: string;
  /** From an org-wide install of the app (`is_enterprise_install: "true"`; needs enterpriseId). */
  orgWideInstall?: boolean;
  channelType?: ChannelType;
  /** How long Slack waits for the ack (Slack: 3000; then the person sees operation_timeout). */
  ackTimeoutMs?: number;
}

export interface InteractionResult {
  /** HTTP status of the app's answer, 200 for a Socket Mode ack, 0 when none came in time. */
  status: number;
  /** The ack's body as sent (HTTP body, or the Socket Mode ack's `payload` as JSON). */
  body: string;
  /** The body parsed as JSON when it is an object, e.g. {response_action:'errors', errors}. */
  json?: Record<string, unknown>;
  elapsedMs: number;
  error?: string;
}

export interface SlashCommandResult extends InteractionResult {
  triggerId: string;
  responseUrl: string;
  /** The form fields (HTTP) / payload (Socket Mode) sent to the app. */
  payload: Record<string, string>;
}

/** One post the app made to a slash command's response_url. */
export interface ResponseUrlPost {
  url: string;
  /** Its JSON body (or the JSON of a `payload` form field). */
  body: Record<string, unknown>;
  /** What the emulator answered: 200 'ok', or 404 expired_url/used_url, 400 no_text… */
  status: number;
  at: number;
}

/** A message only one person saw. */
export interface EphemeralMessage {
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** chat.postEphemeral, a slash command's response_url (default response_type), or its ack body. */
  source: 'chat.postEphemeral' | 'response_url' | 'ack';
  message_ts?: string;
  at: number;
  /** Times a response_url with replace_original changed it (an ephemeral's buttons answered). */
  replaced?: number;
}

export interface OpenedView {
  id: string;
  /** The view as views.open/update answered it (ids, hash, state, root_view_id…). */
  view: Record<string, unknown>;
  userId: string;
  triggerId: string;
  /** False once submitted (and not kept open by response_action errors/update) or cleared. */
  open: boolean;
  /** views.update / response_action update count. */
  updates: number;
}

export interface SlackOption {
  text: { type: 'plain_text'; text: string; emoji?: boolean };
  value: string;
  description?: unknown;
}

/** One element's entry in view.state.values, as Slack sends it. */
export type ViewStateValue =
  | { type: 'plain_text_input' | 'email_text_input' | 'url_text_input'; value: string | null }
  | { type: 'number_input'; value: string | null }
  | {
      type: 'static_select' | 'external_select' | 'radio_buttons';
      selected_option: SlackOption | null;
    }
  | {
      type: 'multi_static_select' | 'multi_external_select' | 'checkboxes';
      selected_options: SlackOption[];
    }
  | { type: 'users_select'; selected_user: string | null }
  | { type: 'conversations_select'; selected_conversation: string | null }
  | { type: 'channels_select'; selected_channel: string | null }
  | { type: 'datepicker'; selected_date: string | null }
  | { type: string; [key: string]: unknown };

/**
 * state.values by block_id then action_id. A plain value is shaped from the view's element:
 * a string for text inputs / single selects (the option's value), string[] for multi selects and
 * checkboxes, a number for number_input, null for "left empty". Full ViewStateValue objects pass as is.
 */
export type ViewValuesInput = Record<
  string,
  Record<string, ViewStateValue | string | string[] | number | null>
>;

export interface SubmitViewInput {
  viewId: string;
  user: string;
  values: ViewValuesInput;
  teamId?: string;
  /**
   * Sent instead of the view's own private_metadata: what a forged request would carry (Slack
   * itself sends back what the app set).
   */
  privateMetadata?: string;
  grid?: GridOrigin;
  ackTimeoutMs?: number;
}

export interface SubmitViewResult extends InteractionResult {
  /** The view_submission payload sent. */
  payload: Record<string, unknown>;
  /** `response_action` of the ack ('errors', 'update', 'push', 'clear'), if any. */
  responseAction?: string;
  /** The ack's `errors` map (block_id → message) when response_action is 'errors'. */
  errors?: Record<string, string>;
}

/** A person closes a modal (Cancel or ×) instead of submitting it. */
export interface CloseViewInput {
  viewId: string;
  user: string;
  teamId?: string;
  grid?: GridOrigin;
  ackTimeoutMs?: number;
}

export interface CloseViewResult extends Partial<InteractionResult> {
  /** False when the view did not ask for `notify_on_close`: Slack then tells the app nothing. */
  delivered: boolean;
  /** The view_closed payload sent, when one was. */
  payload?: Record<string, unknown>;
}

/** A person clicks an interactive element of a message the app posted. */
export interface PressButtonInput {
  channel: string;
  /**
   * The message holding the element, or an ephemeral message's `message_ts`. Slack shows an
   * ephemeral message to its recipient only; a test may press it as someone else to check that the
   * app refuses them.
   */
  ts: string;
  user: string;
  actionId: string;
  /** For Slack's feedback_buttons: which of the two was pressed. */
  choice?: 'positive' | 'negative';
  /**
   * Sent instead of the button's own value: what a tampered client or a forged request would
   * carry (Slack itself sends the value the app set).
   */
  value?: string;
  teamId?: string;
  grid?: GridOrigin;
  ackTimeoutMs?: number;
}

/** A person uses one of the app's message shortcuts on a message. */
export interface MessageShortcutInput {
  channel: string;
  ts: string;
  user: string;
  callbackId: string;
  teamId?: string;
  grid?: GridOrigin;
  ackTimeoutMs?: number;
}

export interface PressButtonResult extends InteractionResult {
  /** The block_actions payload sent. */
  payload: Record<string, unknown>;
}

export interface DeliverOptions {
  eventId?: string;
  retryNum?: number;
  retryReason?: string;
  teamId?: string;
  enterpriseId?: string;
  badSignature?: boolean;
  /** Signs with a timestamp this many seconds in the past (negative: in the future). */
  timestampSkewSec?: number;
  /** How long Slack waits for the app's answer or ack (Slack: 3000). */
  ackTimeoutMs?: number;
}

export interface RetryOptions {
  eventId?: string;
  ackTimeoutMs?: number;
  teamId?: string;
  enterpriseId?: string;
}

export interface Fault {
  error: string;
  status?: number;
  retryAfterSec?: number;
  times?: number;
}

export interface SlackEmulatorOptions {
  signingSecret: string;
  botToken?: string;
  appToken?: string;
  teamId?: string;
  botUserId?: string;
  /** Every Web API call answers after this delay (default 0); see setApiLatencyMs. */
  apiLatencyMs?: number;
  /** Scopes the bot token was granted (the `x-oauth-scopes` header). Default: the manifest's. */
  botScopes?: string[];
  /** The app's OAuth client credentials (generated when absent). */
  clientId?: string;
  clientSecret?: string;
}

export interface SlackEmulator {
  /** e.g. http://127.0.0.1:PORT/api/ (WebClient appends the method name). */
  apiUrl: string;
  teamId: string;
  botUserId: string;
  botId: string;
  appId: string;
  botToken: string;
  appToken: string;
  /** Every Web API call, in arrival order. */
  calls: ApiCall[];
  /** Thread (root first) when threadTs is given, else the channel's top level; deleted ones left out. */
  messages(channel: string, threadTs?: string): SlackMessage[];
  allMessages(): SlackMessage[];
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  setEventsUrl(url: string): void;
  /** Several ingress replicas: each event or interaction goes to one of them at random. */
  setEventsUrls(urls: string[]): void;
  postUserMessage(m: UserMessageInput): Promise<{ ts: string; deliveries: DeliveryResult[] }>;
  deliverEvent(event: Record<string, unknown>, opts?: DeliverOptions): Promise<DeliveryResult>;
  deliverWithRetries(
    event: Record<string, unknown>,
    opts?: RetryOptions,
  ): Promise<DeliveryResult[]>;
  /**
   * Slack's retry of a message's events (a missed ack): every event first sent for the message
   * with this ts is delivered again with the same event_id and the retry headers.
   */
  redeliverEvents(
    ts: string,
    opts?: { retryNum?: number; retryReason?: string; ackTimeoutMs?: number },
  ): Promise<DeliveryResult[]>;
  failNext(method: string, fault: Fault): void;
  setStreamingAvailable(on: boolean): void;
  /** Whether messages may carry feedback buttons (a context_actions block); off: invalid_blocks. */
  setFeedbackButtonsAvailable(on: boolean): void;
  /** Whether messages may carry task cards (Slack's native sources); off: invalid_blocks. */
  setTaskCardsAvailable(on: boolean): void;
  setAssistantStatusAvailable(on: boolean): void;
  expireStream(channel: string, ts: string): void;
  setStreamLifetimeMs(ms: number): void;
  /** Stores a file; its url_private(_download) are served by the emulator. Not shared yet. */
  uploadFile(f: UploadFileInput): SlackFile;
  /** Every request to a file URL (each redirect hop counts), in arrival order. */
  fileDownloads(): FileDownload[];
  /** The Authorization header of each request the other-origin server saw, in order. */
  otherOriginAuthHeaders(): (string | undefined)[];
  /** Applies to every download of the file, or the next `times`; undefined clears it. */
  setFileDownloadFault(fileId: string, fault: FileDownloadFault | undefined, times?: number): void;
  /** Every Web API call (errors and injected faults included) answers after `ms`. */
  setApiLatencyMs(ms: number): void;
  /** The logged calls of one method, in arrival order (`calls` filtered). */
  callsTo(method: string): ApiCall[];
  /**
   * A person edits their message: stored text replaced, `message` event subtype message_changed
   * delivered (HTTP or Socket Mode, whichever is active).
   */
  editUserMessage(e: EditUserMessageInput): Promise<UserChangeResult>;
  /**
   * A person deletes their message: message_deleted. A thread parent with live replies becomes
   * Slack's tombstone instead ("This message was deleted.", user USLACKBOT, subtype tombstone)
   * announced by message_changed; once its last reply goes, the tombstone is deleted too.
   */
  deleteUserMessage(d: DeleteUserMessageInput): Promise<UserChangeResult>;
  /** users.info fields for this id (merged over the generated user; repeated calls merge). */
  setUser(id: string, fields: SlackUserFields): void;
  /** conversations.info's `creator`; default DEFAULT_CHANNEL_CREATOR ('U0EMUOWNER'). */
  setChannelCreator(channel: string, userId: string): void;
  /**
   * A person opens the app's agent view (the DM pane): a thread starts in their DM with the app
   * and assistant_thread_started is delivered, with the channel they look at (`viewing`).
   */
  startAssistantThread(
    t: AssistantThreadInput,
  ): Promise<{ threadTs: string; delivery: DeliveryResult }>;
  /** The person looks at another channel with the pane open: assistant_thread_context_changed. */
  changeAssistantContext(c: AssistantContextInput): Promise<DeliveryResult>;
  /** Agent messaging: the person, in their DM with the app, looks at something else (app_context_changed). */
  changeAppContext(c: AppContextInput): Promise<DeliveryResult>;
  /** What the app set on an agent-view thread (suggested prompts, titles); undefined for others. */
  assistantThread(channel: string, threadTs: string): AssistantThreadState | undefined;
  /** conversations.members of a channel; default: the bot alone. */
  setChannelMembers(channel: string, userIds: readonly string[]): void;
  /**
   * Creates or changes a user group (`S…`) and, unless `notify: false`, delivers the event Slack
   * sends: subteam_created, subteam_members_changed (added/removed users) or subteam_updated.
   */
  setUserGroup(
    id: string,
    g: {
      handle?: string;
      name?: string;
      users?: readonly string[];
      disabled?: boolean;
      notify?: boolean;
    },
  ): Promise<DeliveryResult | undefined>;
  /** A person runs a slash command; resolves with the app's ack. */
  slashCommand(c: SlashCommandInput): Promise<SlashCommandResult>;
  /** Posts the app made to response_urls, in order. */
  responses(): ResponseUrlPost[];
  /**
   * A recorded payload sent as Slack sends it (an event envelope, an interactivity payload or a
   * slash command's fields), with a fresh trigger id and response URLs that lead here.
   */
  replay(
    kind: 'event' | 'interactive' | 'command',
    body: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<DeliveryResult>;
  /** Every modal views.open/push created, in order. */
  openedViews(): OpenedView[];
  /** A person submits an open modal; resolves with the app's ack. */
  submitView(s: SubmitViewInput): Promise<SubmitViewResult>;
  /** The person closes the modal; `view_closed` goes to the app if the view asked for it. */
  closeView(c: CloseViewInput): Promise<CloseViewResult>;
  /**
   * Clicks a button (or one of Slack's feedback buttons) in a message or an ephemeral message: a
   * block_actions payload.
   */
  pressButton(p: PressButtonInput): Promise<PressButtonResult>;
  /** A message shortcut used on a message: a message_action payload. */
  messageShortcut(s: MessageShortcutInput): Promise<PressButtonResult>;
  /** Messages shown to one person (chat.postEphemeral, slash command responses). */
  ephemeralMessages(): EphemeralMessage[];
  /** A fresh trigger id for this user, as an interaction would give the app. */
  newTriggerId(userId: string): string;
  /** Trigger id lifetime (Slack: 3000 ms). */
  setTriggerLifetimeMs(ms: number): void;
  /** The app's OAuth client credentials, for oauth.v2.access. */
  oauthClient: { id: string; secret: string };
  /**
   * A person approves the app on the authorize page the app sent them to: returns where Slack
   * sends the browser back (the redirect URL with `code` and the app's `state`).
   */
  approveInstall(
    authorizeUrl: string,
    o: ApproveInstallInput,
  ): { redirectUrl: string; code: string };
  /**
   * Token rotation (the app setting): tokens issued from now on expire after `lifetimeSec` and
   * come with a single-use refresh token; undefined turns it off.
   */
  setTokenRotation(lifetimeSec: number | undefined): void;
  /** How many refresh tokens were exchanged (oauth.v2.access, grant_type=refresh_token). */
  tokenRefreshes(): number;
  /** The live installation serving this team (its own, or its org's), if any. */
  installedWorkspace(teamId: string, enterpriseId?: string): InstalledWorkspace | undefined;
  /**
   * An admin removes the app: the installation's tokens stop working (token_revoked) and
   * `app_uninstalled` is delivered for the team.
   */
  uninstallApp(teamId: string, enterpriseId?: string): Promise<DeliveryResult>;
  /** The bot token is revoked (auth.revoke by an admin): `tokens_revoked` is delivered. */
  revokeBotToken(teamId: string, enterpriseId?: string): Promise<DeliveryResult>;
  /** Disconnect Socket Mode clients first: a client left running reconnects into a closed port. */
  close(): Promise<void>;
}
