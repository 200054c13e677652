// The contract's driver on Slack: people post through the Slack emulator (Events API over signed
// HTTP), the bot answers through Bolt and the Web API. Every mention starts in a fresh channel, so
// a thread's channel holds nothing else.
import type { SlackMessage, UserMessageInput } from '../emulators/slack/index.ts';
import { watchFileEvents } from '../support/file-events.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { contractOverrides } from './config.ts';
import type {
  Attachment,
  BotMessage,
  MakeDriver,
  Mark,
  PlatformDriver,
  Posted,
  ReactionKind,
  Thread,
  Who,
} from './driver.ts';
import { slackPings } from './pings.ts';

// Slack's limits: 3,000 characters of mrkdwn in a message's text, 12,000 in a stream's markdown_text.
const MRKDWN_LIMIT = 3000;
const MARKDOWN_LIMIT = 12_000;

const STARTER = 'U0STARTER1';
const OTHER = 'U0OTHERUS1';

interface SlackThread extends Thread {
  channel: string;
  ts: string;
}

interface SlackMark {
  calls: number;
  messages: Set<string>;
}

const REACTIONS: Record<string, ReactionKind> = { white_check_mark: 'ok', warning: 'warning' };

export const makeSlackDriver: MakeDriver = async (opts = {}) =>
  new SlackDriver(await startHarness({ overrides: contractOverrides(opts.overrides) }));

class SlackDriver implements PlatformDriver {
  readonly name = 'slack';
  readonly longestMessage = MARKDOWN_LIMIT;
  private readonly h: Harness;
  private readonly files;
  private readonly threads = new Map<string, SlackThread>();
  /** Deliveries made so far of each message, by ts. */
  private readonly deliveries = new Map<string, number>();
  private readonly channelOf = new Map<string, string>();
  private readonly carriesFiles = new Set<string>();
  private channels = 0;

  constructor(h: Harness) {
    this.h = h;
    this.files = watchFileEvents(h.app.core);
  }

  get llm() {
    return this.h.llm;
  }

  private get bot(): string {
    return `<@${this.h.slack.botUserId}>`;
  }

  private freshChannel(): string {
    this.channels += 1;
    return `CK${String(this.channels).padStart(8, '0')}`;
  }

  private thread(channel: string, ts: string): SlackThread {
    const t: SlackThread = { id: `${channel}/${ts}`, channel, ts };
    this.threads.set(t.id, t);
    return t;
  }

  private of(thread: Thread): SlackThread {
    const t = this.threads.get(thread.id);
    if (!t) throw new Error(`slack driver: unknown thread ${thread.id}`);
    return t;
  }

  private async post(m: UserMessageInput, files: Attachment[] = []): Promise<string> {
    const uploaded = files.map((f) =>
      this.h.slack.uploadFile({ name: f.name, bytes: f.bytes, user: m.user }),
    );
    const { ts, deliveries } = await this.h.slack.postUserMessage(
      uploaded.length > 0 ? { ...m, files: uploaded } : m,
    );
    this.deliveries.set(ts, deliveries.length);
    this.channelOf.set(ts, m.channel);
    return ts;
  }

  private addressed(text: string): string {
    return text === '' ? this.bot : `${this.bot} ${text}`;
  }

  async mention(text: string, opts: { files?: Attachment[] } = {}): Promise<Posted> {
    const channel = this.freshChannel();
    const ts = await this.post({ channel, user: STARTER, text: this.addressed(text) }, opts.files);
    return { thread: this.thread(channel, ts), messageId: ts };
  }

  async followUp(
    thread: Thread,
    text: string,
    opts: { mention?: boolean; as?: Who } = {},
  ): Promise<Posted> {
    const t = this.of(thread);
    const ts = await this.post({
      channel: t.channel,
      thread_ts: t.ts,
      user: opts.as === 'other' ? OTHER : STARTER,
      text: opts.mention ? this.addressed(text) : text,
    });
    return { thread, messageId: ts };
  }

  async redeliver(messageId: string): Promise<void> {
    const results = await this.h.slack.redeliverEvents(messageId);
    const bad = results.filter((r) => r.status !== 200);
    if (bad.length > 0)
      throw new Error(`slack redelivery not acknowledged: ${JSON.stringify(bad)}`);
    this.deliveries.set(messageId, (this.deliveries.get(messageId) ?? 0) + results.length);
  }

  async uploadFile(where: Thread | 'channel', file: Attachment): Promise<Posted> {
    const t = where === 'channel' ? undefined : this.of(where);
    const channel = t?.channel ?? this.freshChannel();
    const ts = await this.post(
      { channel, user: STARTER, text: '', ...(t ? { thread_ts: t.ts } : {}) },
      [file],
    );
    this.carriesFiles.add(ts);
    // At a channel's top level the bot tells the poster in a thread under the file's message.
    return { thread: t ?? this.thread(channel, ts), messageId: ts };
  }

  shareFile(file: Attachment): Promise<Posted> {
    return this.mention('share this with the workspace', { files: [file] });
  }

  askSummary(thread: Thread): Promise<Posted> {
    return this.followUp(thread, 'summarize', { mention: true });
  }

  forget(thread: Thread): Promise<Posted> {
    return this.followUp(thread, 'forget this thread', { mention: true });
  }

  async handled(messageId: string, deliveries?: number) {
    const events = await this.h.handled(
      messageId,
      deliveries ?? this.deliveries.get(messageId) ?? 1,
    );
    if (this.carriesFiles.has(messageId)) await this.files.done(messageId);
    return events.map((e) => e.handled);
  }

  private botOnly(messages: SlackMessage[]): SlackMessage[] {
    return messages.filter((m) => m.bot_id !== undefined);
  }

  botMessages(thread: Thread): BotMessage[] {
    const t = this.of(thread);
    return this.botOnly(this.h.slack.messages(t.channel, t.ts)).map((m) => ({
      text: m.markdown_text ?? m.text,
      limit: m.markdown_text !== undefined ? MARKDOWN_LIMIT : MRKDWN_LIMIT,
    }));
  }

  strayBotMessages(thread: Thread): string[] {
    return this.botOnly(this.h.slack.messages(this.of(thread).channel)).map((m) => m.text);
  }

  reactions(messageId: string): ReactionKind[] {
    const channel = this.channelOf.get(messageId);
    const m = this.h.slack.allMessages().find((x) => x.channel === channel && x.ts === messageId);
    return (m?.reactions ?? [])
      .filter((r) => r.users.includes(this.h.slack.botUserId))
      .map((r) => REACTIONS[r.name] ?? 'other');
  }

  mark(): Mark {
    const messages = new Set(
      this.botOnly(this.h.slack.allMessages()).map((m) => `${m.channel}/${m.ts}`),
    );
    return { calls: this.h.slack.calls.length, messages } satisfies SlackMark;
  }

  pings(since?: Mark): string[] {
    const from = (since as SlackMark | undefined) ?? { calls: 0, messages: new Set<string>() };
    return slackPings(
      this.h.slack.calls.slice(from.calls),
      this.botOnly(this.h.slack.allMessages()).filter(
        (m) => !from.messages.has(`${m.channel}/${m.ts}`),
      ),
    );
  }

  /** Off: the workspace lacks chat.startStream, so answers are posted and edited (for the rest of the run: the bot remembers). */
  setNativeStreaming(on: boolean): void {
    this.h.slack.setStreamingAvailable(on);
  }

  close(): Promise<void> {
    return this.h.close();
  }
}
