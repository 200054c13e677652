// The contract's driver on Slack: people post through the Slack emulator (Events API over signed
// HTTP), the bot answers through Bolt and the Web API. Every mention starts in a fresh channel, so
// a thread's channel holds nothing else.

import { SessionHistory } from '../../src/store/session-history.ts';
import { shownText } from '../emulators/slack/block-kit.ts';
import type { SlackMessage, UserMessageInput } from '../emulators/slack/index.ts';
import { waitFor } from '../emulators/slack/wait-for.ts';
import { changeTakenIn } from '../support/core-events.ts';
import { watchFileEvents } from '../support/file-events.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { contractOverrides } from './config.ts';
import type {
  Attachment,
  BotMessage,
  Line,
  MakeDriver,
  Mark,
  Posted,
  ReactionKind,
  SettingsChange,
  Thread,
  ThreadDriver,
  Who,
} from './driver.ts';
import { slackPings } from './pings.ts';

// Slack's limit: 12,000 characters of Markdown in a message's markdown block or a stream's
// markdown_text.
const MARKDOWN_LIMIT = 12_000;

const STARTER = 'U0STARTER1';
const OTHER = 'U0OTHERUS1';
const THIRD = 'U0THIRDUS1';
/** A workspace admin (users.info is_admin), who may change channel settings. */
const ADMIN = 'U0ADMINUS1';
const PEOPLE: Record<Who, string> = { starter: STARTER, other: OTHER, third: THIRD };
const NAMES: Record<Who, string> = { starter: 'Sam', other: 'Olga', third: 'Mina' };
const READ_METHODS = ['conversations.replies', 'conversations.history', 'users.info'];

interface SlackThread extends Thread {
  channel: string;
  ts: string;
}

interface SlackMark {
  calls: number;
  messages: Set<string>;
}

const REACTIONS: Record<string, ReactionKind> = { white_check_mark: 'ok', warning: 'warning' };

export const makeSlackDriver: MakeDriver<ThreadDriver> = async (opts = {}) => {
  const h = await startHarness({ overrides: contractOverrides(opts.overrides) });
  if (opts.models) h.llm.setModels(opts.models);
  return new SlackDriver(h);
};

class SlackDriver implements ThreadDriver {
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
    for (const who of ['starter', 'other', 'third'] as const)
      h.slack.setUser(PEOPLE[who], { profile: { display_name: NAMES[who] } });
    h.slack.setUser(ADMIN, { is_admin: true, profile: { display_name: 'Ada' } });
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
    opts: { mention?: boolean; as?: Who; naming?: Who } = {},
  ): Promise<Posted> {
    const t = this.of(thread);
    const named = opts.naming ? `<@${PEOPLE[opts.naming]}> ${text}` : text;
    const ts = await this.post({
      channel: t.channel,
      thread_ts: t.ts,
      user: PEOPLE[opts.as ?? 'starter'],
      text: opts.mention ? this.addressed(named) : named,
    });
    return { thread, messageId: ts };
  }

  async discussion(lines: Line[]): Promise<{ thread: Thread; posted: Posted[] }> {
    const [first, ...rest] = lines;
    if (!first) throw new Error('slack driver: a discussion needs a first line');
    const channel = this.freshChannel();
    const root = await this.post(
      { channel, user: PEOPLE[first.as], text: first.text },
      first.files,
    );
    if (first.files?.length) this.carriesFiles.add(root);
    const thread = this.thread(channel, root);
    const posted: Posted[] = [{ thread, messageId: root }];
    for (const line of rest) {
      const ts = await this.post(
        { channel, thread_ts: root, user: PEOPLE[line.as], text: line.text },
        line.files,
      );
      if (line.files?.length) this.carriesFiles.add(ts);
      posted.push({ thread, messageId: ts });
    }
    return { thread, posted };
  }

  nameOf(who: Who): string {
    return NAMES[who];
  }

  async editMessage(p: Posted, text: string): Promise<void> {
    const taken = changeTakenIn(this.h.app.core, p.messageId);
    await this.h.slack.editUserMessage({
      channel: this.of(p.thread).channel,
      ts: p.messageId,
      text,
    });
    await taken;
  }

  async deleteMessage(p: Posted): Promise<void> {
    const taken = changeTakenIn(this.h.app.core, p.messageId);
    await this.h.slack.deleteUserMessage({ channel: this.of(p.thread).channel, ts: p.messageId });
    await taken;
  }

  readCalls(): number {
    return READ_METHODS.reduce((n, m) => n + this.h.slack.callsTo(m).length, 0);
  }

  async storedHistory(thread: Thread): Promise<string> {
    const t = this.of(thread);
    const key = `slack:${this.h.slack.teamId}:${t.channel}:${t.ts}`;
    const history = new SessionHistory(this.h.app.store, 1000);
    return JSON.stringify([...(await history.archived(key)), ...(await history.load(key))]);
  }

  /** Waits for a new private message to `user` and returns its text. */
  private async ephemeralTo(user: string, before: number): Promise<string> {
    const found = await waitFor(
      () =>
        this.h.slack
          .ephemeralMessages()
          .slice(before)
          .find((m) => m.user === user),
      5000,
      () => `no private message reached ${user}`,
    );
    return found.text;
  }

  async changeSettings(
    thread: Thread,
    as: 'admin' | 'member',
    change: SettingsChange,
  ): Promise<string> {
    const t = this.of(thread);
    const user = as === 'admin' ? ADMIN : OTHER;
    const seen = this.h.slack.ephemeralMessages().length;
    const views = this.h.slack.openedViews().length;
    await this.h.slack.slashCommand({ command: '/threadmind', user, channel: t.channel });
    if (as === 'member') return this.ephemeralTo(user, seen);
    const opened = await waitFor(
      () =>
        this.h.slack
          .openedViews()
          .slice(views)
          .find((v) => v.userId === user),
      5000,
      () => 'the settings form never opened',
    );
    const result = await this.h.slack.submitView({
      viewId: opened.id,
      user,
      values: formValues(opened.view, change),
    });
    if (result.responseAction === 'errors') return JSON.stringify(result.errors);
    return this.ephemeralTo(user, seen);
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
      text: shownText(m),
      limit: MARKDOWN_LIMIT,
    }));
  }

  strayBotMessages(thread: Thread): string[] {
    return this.botOnly(this.h.slack.messages(this.of(thread).channel)).map((m) => m.text);
  }

  privateMessages(): string[] {
    return this.h.slack
      .ephemeralMessages()
      .filter((m) => m.user === STARTER)
      .map((m) => m.text);
  }

  turnsWaiting(): number {
    return this.h.app.runner.waitingTurns;
  }

  usageBooked(): Promise<void> {
    return this.h.app.usage.settled();
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

type Block = {
  block_id?: string;
  element?: {
    action_id?: string;
    type?: string;
    initial_option?: { value: string };
    initial_options?: { value: string }[];
    initial_value?: string;
  };
};

/** The form's values as a person leaves them, with `change` typed in. */
function formValues(view: Record<string, unknown>, change: SettingsChange) {
  const values: Record<string, Record<string, string | string[] | null>> = {};
  for (const b of (view.blocks as Block[] | undefined) ?? []) {
    const e = b.element;
    if (!b.block_id || !e?.action_id) continue;
    let v: string | string[] | null =
      e.initial_option?.value ?? e.initial_value ?? e.initial_options?.map((o) => o.value) ?? null;
    if (b.block_id === 'reply_mode' && change.replyMode) v = change.replyMode;
    if (b.block_id === 'instructions' && change.instructions !== undefined) v = change.instructions;
    if (b.block_id === 'model' && change.model !== undefined) v = change.model || 'default';
    values[b.block_id] = { [e.action_id]: v };
  }
  return values;
}
