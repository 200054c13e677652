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
  failNext(method: string, fault: Fault): void;
  setStreamingAvailable(on: boolean): void;
  setAssistantStatusAvailable(on: boolean): void;
  expireStream(channel: string, ts: string): void;
  setStreamLifetimeMs(ms: number): void;
  /** Disconnect Socket Mode clients first: a client left running reconnects into a closed port. */
  close(): Promise<void>;
}
