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
  /** Scopes the bot token was granted (the `x-oauth-scopes` header). Default: six of the manifest's. */
  botScopes?: string[];
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
  /** Disconnect Socket Mode clients first: a client left running reconnects into a closed port. */
  close(): Promise<void>;
}
