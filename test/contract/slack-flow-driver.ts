// The interaction contract's driver on Slack: people post and press through the Slack emulator,
// the bot answers through Bolt. A private place is a private channel (`G…`) of two people; every
// share starts in a fresh channel. With `split`, an ingress takes Slack's requests and a worker
// (replaceable) runs the messages, on a Redis of the driver's own.

import type { RunningApp } from '../../src/compose/app.ts';
import { type CommandName, command, slackShortcutId } from '../../src/core/commands.ts';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { watchFileEvents } from '../support/file-events.ts';
import { type Harness, startHarness, startWorkerBeside } from '../support/harness.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';
import { contractOverrides } from './config.ts';
import type { Attachment, Who } from './driver.ts';
import {
  type Answered,
  type Asked,
  type Button,
  CoreWatch,
  type Exported,
  type FlowDriver,
  type MakeFlowDriver,
  type SeenConfirmation,
  type VoteButton,
} from './flow-driver.ts';

/** A workspace admin (users.info is_admin), who may erase the workspace's data. */
const ADMIN = 'U0ADMINER1';
const PEOPLE: Record<Who, string> = {
  starter: 'U0ASKER01',
  other: 'U0OTHER01',
  third: 'U0THIRD01',
};

/** An erase confirmation: the modal Slack opened (none when the person was refused). */
interface SlackErase extends Asked {
  channel: string;
  view?: string;
}

/** Where a confirmation is: a message in the channel (typed), or an ephemeral to the asker. */
interface SlackAsked extends Asked {
  channel: string;
  /** The thread the typed request is in. */
  thread: string;
  ts: string;
  ephemeral: boolean;
}

/** Where the settings scenarios change settings. */
const SETTINGS_CHANNEL = 'CSETTINGS1';

type Input = {
  block_id?: string;
  element?: {
    action_id?: string;
    initial_value?: string;
    initial_option?: { value: string };
    initial_options?: { value: string }[];
  };
};

/** A modal's inputs as the person leaves them (their initial values), with `change` typed in. */
export function filledIn(view: Record<string, unknown>, change: Record<string, string>) {
  const values: Record<string, Record<string, string | string[] | null>> = {};
  for (const b of (view.blocks as Input[] | undefined) ?? []) {
    const e = b.element;
    if (!b.block_id || !e?.action_id) continue;
    const initial =
      e.initial_option?.value ?? e.initial_value ?? e.initial_options?.map((o) => o.value) ?? null;
    values[b.block_id] = { [e.action_id]: change[b.block_id] ?? initial };
  }
  return values;
}

type Block = { elements?: { action_id?: string; value?: string; text?: { text?: string } }[] };

/** An answer in a channel's thread. */
interface SlackAnswered extends Answered {
  channel: string;
  ts: string;
  /** The thread the answer is in. */
  root: string;
}

/** What a person types after the mention for each of the table's commands. */
const COMMAND_WORDS: Partial<Record<CommandName, string>> = {
  summarize: 'summarize',
  files: 'which files can you see?',
  forget: 'forget this thread',
};

type VoteEl = {
  type?: string;
  text?: { text?: string };
  positive_button?: { text: { text: string } };
  negative_button?: { text: { text: string } };
};

/** The vote block under an answer (native feedback buttons, or plain ones). */
function votesOf(m: SlackMessage | undefined): VoteEl[] {
  const b = ((m?.blocks ?? []) as { type: string; elements?: VoteEl[] }[]).find(
    (x) =>
      x.type === 'context_actions' || (x.type === 'actions' && JSON.stringify(x).includes('tm:up')),
  );
  return b?.elements ?? [];
}

/** Slack escapes these three in message text. */
const fromMrkdwn = (t: string) =>
  t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export const makeSlackFlowDriver: MakeFlowDriver = async (opts = {}) => {
  const redis = opts.split ? await startPrivateRedis() : undefined;
  const h = await startHarness({
    ...(redis ? { env: { THREADMIND_ROLE: 'ingress', STORE_URL: redis.url } } : {}),
    overrides: contractOverrides({
      ...(redis ? { scale: { queue: { name: `flows-${process.pid}`, orderPollMs: 20 } } } : {}),
      ...opts.overrides,
    }),
  });
  const d = new SlackFlowDriver(h, redis);
  if (redis) await d.replaceWorker();
  return d;
};

class SlackFlowDriver implements FlowDriver {
  readonly name = 'slack';
  readonly privatePlaces = true;
  private readonly h: Harness;
  private readonly redis: TestRedis | undefined;
  private readonly watch = new CoreWatch();
  private files;
  private worker: RunningApp | undefined;
  private channels = 0;

  constructor(h: Harness, redis: TestRedis | undefined) {
    this.h = h;
    this.redis = redis;
    this.watch.watch(h.app.core);
    this.files = watchFileEvents(h.app.core);
    h.slack.setUser(ADMIN, { is_admin: true, profile: { display_name: 'Ada' } });
  }

  get llm() {
    return this.h.llm;
  }

  private get bot(): string {
    return this.h.slack.botUserId;
  }

  private fresh(where: 'private' | 'public'): string {
    this.channels += 1;
    const channel = `${where === 'private' ? 'G' : 'C'}F${String(this.channels).padStart(7, '0')}`;
    if (where === 'private')
      this.h.slack.setChannelMembers(channel, [PEOPLE.starter, PEOPLE.other, this.bot]);
    return channel;
  }

  private ephemeralsOf(user: string) {
    return this.h.slack.ephemeralMessages().filter((e) => e.user === user);
  }

  private botReplies(channel: string, thread: string): SlackMessage[] {
    return this.h.slack.messages(channel, thread).filter((m) => m.bot_id !== undefined);
  }

  async shareTyped(file: Attachment, where: 'private' | 'public'): Promise<Asked> {
    const channel = this.fresh(where);
    const uploaded = this.h.slack.uploadFile({
      name: file.name,
      bytes: file.bytes,
      user: PEOPLE.starter,
    });
    const { ts } = await this.h.slack.postUserMessage({
      channel,
      user: PEOPLE.starter,
      text: `<@${this.bot}> share this with the workspace`,
      files: [uploaded],
    });
    await this.watch.handled(ts);
    const reply = await this.h.slack.waitFor(() => this.botReplies(channel, ts).at(-1));
    const asked: SlackAsked = {
      said: reply.text,
      channel,
      thread: ts,
      ts: reply.ts,
      ephemeral: false,
    };
    return asked;
  }

  async shareFromMessage(
    file: Attachment | undefined,
    where: 'private' | 'public',
  ): Promise<Asked> {
    const channel = this.fresh(where);
    const uploaded = file
      ? [this.h.slack.uploadFile({ name: file.name, bytes: file.bytes, user: PEOPLE.starter })]
      : [];
    const { ts } = await this.h.slack.postUserMessage({
      channel,
      user: PEOPLE.starter,
      text: 'notes',
      ...(file ? { files: uploaded } : {}),
    });
    // The file is first read into the channel, where it was posted.
    if (file) await this.files.done(ts);
    const seen = this.ephemeralsOf(PEOPLE.starter).length;
    await this.h.slack.messageShortcut({
      channel,
      ts,
      user: PEOPLE.starter,
      callbackId: 'threadmind_share_file',
    });
    const e = await this.h.slack.waitFor(() => this.ephemeralsOf(PEOPLE.starter)[seen]);
    const asked: SlackAsked = {
      said: e.text,
      channel,
      thread: ts,
      ts: e.message_ts ?? '',
      ephemeral: true,
    };
    return asked;
  }

  private blocksOf(a: SlackAsked): { text: string; blocks: unknown[] } | undefined {
    if (a.ephemeral) {
      const e = this.h.slack
        .ephemeralMessages()
        .find((x) => x.channel === a.channel && x.message_ts === a.ts);
      return e && { text: e.text, blocks: e.blocks ?? [] };
    }
    const m = this.h.slack.messages(a.channel, a.thread).find((x) => x.ts === a.ts);
    return m && { text: m.text, blocks: m.blocks ?? [] };
  }

  confirmation(asked: Asked): SeenConfirmation {
    const shown = this.blocksOf(asked as SlackAsked);
    const buttons = ((shown?.blocks ?? []) as Block[]).flatMap((b) =>
      (b.elements ?? []).map((e) => e.text?.text ?? ''),
    );
    return { text: shown?.text ?? '', buttons, onlyAsker: (asked as SlackAsked).ephemeral };
  }

  refOf(asked: Asked, button: Button): string {
    const erase = asked as SlackErase;
    if ('view' in erase) {
      const view = this.h.slack.openedViews().find((v) => v.id === erase.view);
      const refs = JSON.parse(String(view?.view.private_metadata ?? '{}')) as {
        s?: string;
        c?: string;
      };
      const ref = button === 'confirm' ? refs.s : refs.c;
      if (!ref) throw new Error(`slack flow driver: no ${button} on the modal`);
      return ref;
    }
    const shown = this.blocksOf(asked as SlackAsked);
    const el = ((shown?.blocks ?? []) as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === `tm:${button}`);
    if (!el?.value) throw new Error(`slack flow driver: no ${button} button`);
    return el.value;
  }

  async press(
    asked: Asked,
    button: Button,
    as: Who = 'starter',
    tamper?: (ref: string) => string,
  ): Promise<string> {
    const a = asked as SlackAsked;
    const user = PEOPLE[as];
    const before = this.ephemeralsOf(user).length;
    const shownBefore = JSON.stringify(this.blocksOf(a));
    const value = tamper?.(this.refOf(a, button));
    const since = this.watch.interactions;
    await this.h.slack.pressButton({
      channel: a.channel,
      ts: a.ts,
      user,
      actionId: `tm:${button}`,
      ...(value === undefined ? {} : { value }),
    });
    await this.watch.interacted(since, user);
    // Told privately (a new ephemeral), or the confirmation itself was replaced.
    return this.h.slack.waitFor(() => {
      const fresh = this.ephemeralsOf(user).slice(before).at(-1);
      if (fresh) return fresh.text;
      const now = this.blocksOf(a);
      return JSON.stringify(now) !== shownBefore ? (now?.text ?? '') : undefined;
    });
  }

  async typeConfirm(asked: Asked, as: Who = 'starter'): Promise<string> {
    const a = asked as SlackAsked;
    const before = this.botReplies(a.channel, a.thread).length;
    const { ts } = await this.h.slack.postUserMessage({
      channel: a.channel,
      thread_ts: a.thread,
      user: PEOPLE[as],
      text: `<@${this.bot}> confirm share`,
    });
    await this.watch.handled(ts);
    const said = await this.h.slack.waitFor(() => {
      const fresh = this.botReplies(a.channel, a.thread).slice(before);
      return fresh.length > 0 ? fresh : undefined;
    });
    return said.map((m) => m.text).join('\n');
  }

  async askErase(as: 'admin' | 'member'): Promise<Asked> {
    const channel = this.fresh('public');
    const user = as === 'admin' ? ADMIN : PEOPLE.starter;
    const seen = this.ephemeralsOf(user).length;
    const views = this.h.slack.openedViews().length;
    await this.h.slack.slashCommand({
      command: '/threadmind',
      text: 'erase-workspace',
      user,
      channel,
    });
    const shown = await this.h.slack.waitFor(
      () => this.h.slack.openedViews().slice(views)[0] ?? this.ephemeralsOf(user)[seen],
    );
    if ('view' in shown) {
      const asked: SlackErase = {
        said: JSON.stringify(shown.view.blocks),
        channel,
        view: shown.id,
      };
      return asked;
    }
    const refused: SlackErase = { said: shown.text, channel };
    return refused;
  }

  async confirmErase(
    asked: Asked,
    word: string,
    tamper?: (ref: string) => string,
  ): Promise<string> {
    const a = asked as SlackErase;
    if (!a.view) throw new Error('slack flow driver: no erase modal');
    const seen = this.ephemeralsOf(ADMIN).length;
    const view = this.h.slack.openedViews().find((v) => v.id === a.view);
    const kept = JSON.parse(String(view?.view.private_metadata ?? '{}')) as Record<string, string>;
    const metadata = tamper ? JSON.stringify({ ...kept, s: tamper(kept.s ?? '') }) : undefined;
    const r = await this.h.slack.submitView({
      viewId: a.view,
      user: ADMIN,
      values: { word: { value: word } },
      ...(metadata ? { privateMetadata: metadata } : {}),
    });
    if (r.responseAction === 'errors') return Object.values(r.errors ?? {}).join('\n');
    return (await this.h.slack.waitFor(() => this.ephemeralsOf(ADMIN)[seen])).text;
  }

  async cancelErase(asked: Asked): Promise<string> {
    const a = asked as SlackErase;
    if (!a.view) throw new Error('slack flow driver: no erase modal');
    const seen = this.ephemeralsOf(ADMIN).length;
    await this.h.slack.closeView({ viewId: a.view, user: ADMIN });
    return (await this.h.slack.waitFor(() => this.ephemeralsOf(ADMIN)[seen])).text;
  }

  async openSettings(as: 'admin' | 'member'): Promise<Asked> {
    const user = as === 'admin' ? ADMIN : PEOPLE.starter;
    const seen = this.ephemeralsOf(user).length;
    const views = this.h.slack.openedViews().length;
    await this.h.slack.slashCommand({
      command: '/threadmind',
      text: 'settings',
      user,
      channel: SETTINGS_CHANNEL,
    });
    const shown = await this.h.slack.waitFor(
      () => this.h.slack.openedViews().slice(views)[0] ?? this.ephemeralsOf(user)[seen],
    );
    if ('view' in shown) {
      const asked: SlackErase = { said: '', channel: SETTINGS_CHANNEL, view: shown.id };
      return asked;
    }
    const refused: SlackErase = { said: shown.text, channel: SETTINGS_CHANNEL };
    return refused;
  }

  async saveSettings(asked: Asked, values: Record<string, string>): Promise<string> {
    const a = asked as SlackErase;
    const view = this.h.slack.openedViews().find((v) => v.id === a.view);
    if (!view) throw new Error('slack flow driver: no settings modal');
    const seen = this.ephemeralsOf(ADMIN).length;
    const r = await this.h.slack.submitView({
      viewId: view.id,
      user: ADMIN,
      values: filledIn(view.view, values),
    });
    if (r.responseAction === 'errors') return Object.values(r.errors ?? {}).join('\n');
    return (await this.h.slack.waitFor(() => this.ephemeralsOf(ADMIN)[seen])).text;
  }

  async askWhereSettings(question: string): Promise<void> {
    const { ts } = await this.h.slack.postUserMessage({
      channel: SETTINGS_CHANNEL,
      user: PEOPLE.third,
      text: `<@${this.bot}> ${question}`,
    });
    await this.watch.handled(ts);
  }

  async askElsewhere(question: string): Promise<string> {
    const channel = this.fresh('public');
    const { ts } = await this.h.slack.postUserMessage({
      channel,
      user: PEOPLE.third,
      text: `<@${this.bot}> ${question}`,
    });
    await this.watch.handled(ts);
    return this.botReplies(channel, ts)
      .map((m) => m.markdown_text ?? m.text)
      .join('\n');
  }

  async askInAnotherProject(question: string): Promise<string> {
    const channel = this.fresh('public');
    const { ts } = await this.h.slack.postUserMessage({
      channel,
      user: 'U0ELSEWHR1',
      teamId: 'T0OTHER001',
      text: `<@${this.bot}> ${question}`,
    });
    await this.watch.handled(ts);
    return this.botReplies(channel, ts)
      .map((m) => m.markdown_text ?? m.text)
      .join('\n');
  }

  async askForAnswer(question: string): Promise<Answered> {
    const channel = this.fresh('public');
    this.h.llm.setResponder(() => ({ content: `About "${question}": the limit is 5.` }));
    const { ts } = await this.h.slack.postUserMessage({
      channel,
      user: PEOPLE.third,
      text: `<@${this.bot}> ${question}`,
    });
    await this.watch.handled(ts);
    const m = await this.h.slack.waitFor(() =>
      this.botReplies(channel, ts).findLast((x) => votesOf(x).length > 0),
    );
    const a: SlackAnswered = { text: m.text, channel, ts: m.ts, root: ts };
    return a;
  }

  async runCommand(a: Answered, name: CommandName, text = ''): Promise<string> {
    const s = a as SlackAnswered;
    const { ts } = await this.h.slack.postUserMessage({
      channel: s.channel,
      thread_ts: s.root,
      user: PEOPLE.third,
      text: `<@${this.bot}> ${COMMAND_WORDS[name] ?? text}`,
    });
    await this.watch.handled(ts);
    return this.botReplies(s.channel, s.root)
      .filter((m) => Number(m.ts) > Number(ts))
      .map((m) => m.markdown_text ?? m.text)
      .join('\n');
  }

  async askAbout(text: string): Promise<string> {
    const channel = this.fresh('public');
    const { ts } = await this.h.slack.postUserMessage({ channel, user: PEOPLE.other, text });
    await this.h.slack.messageShortcut({
      channel,
      ts,
      user: PEOPLE.starter,
      callbackId: slackShortcutId(command('ask-about')),
    });
    const m = await this.h.slack.waitFor(() =>
      this.botReplies(channel, ts).findLast((x) => votesOf(x).length > 0),
    );
    return m.markdown_text ?? m.text;
  }

  private answerOf(a: Answered): SlackMessage | undefined {
    const s = a as SlackAnswered;
    return (
      this.h.slack.messages(s.channel).find((m) => m.ts === s.ts) ??
      this.h.slack.allMessages().find((m) => m.channel === s.channel && m.ts === s.ts)
    );
  }

  voteButtons(a: Answered): string[] {
    return votesOf(this.answerOf(a)).flatMap((e) =>
      e.type === 'feedback_buttons'
        ? [e.positive_button?.text.text ?? '', e.negative_button?.text.text ?? '']
        : [e.text?.text ?? ''],
    );
  }

  async vote(a: Answered, vote: VoteButton, as: Who = 'starter'): Promise<string> {
    const s = a as SlackAnswered;
    const user = PEOPLE[as];
    const seen = this.ephemeralsOf(user).length;
    const views = this.h.slack.openedViews().length;
    const native = votesOf(this.answerOf(a))[0]?.type === 'feedback_buttons';
    await this.h.slack.pressButton({
      channel: s.channel,
      ts: s.ts,
      user,
      actionId: native ? 'tm:vote' : `tm:${vote}`,
      ...(native ? { choice: vote === 'up' ? ('positive' as const) : ('negative' as const) } : {}),
    });
    // Thanked privately, or the reason form opened.
    const shown = await this.h.slack.waitFor(
      () =>
        this.h.slack
          .openedViews()
          .slice(views)
          .find((v) => v.userId === user) ?? this.ephemeralsOf(user)[seen],
    );
    return 'view' in shown ? JSON.stringify(shown.view.blocks) : shown.text;
  }

  async giveReason(_a: Answered, reason: string, as: Who = 'starter'): Promise<string> {
    const user = PEOPLE[as];
    const form = this.h.slack.openedViews().findLast((v) => v.userId === user);
    if (!form) throw new Error('slack flow driver: no reason form');
    const seen = this.ephemeralsOf(user).length;
    await this.h.slack.submitView({ viewId: form.id, user, values: { reason: { value: reason } } });
    return (await this.h.slack.waitFor(() => this.ephemeralsOf(user)[seen])).text;
  }

  async exportFeedback(as: 'admin' | 'member', format: 'csv' | 'json'): Promise<Exported> {
    const user = as === 'admin' ? ADMIN : PEOPLE.starter;
    const seen = this.ephemeralsOf(user).length;
    await this.h.slack.slashCommand({
      command: '/threadmind',
      text: `feedback export ${format}`,
      user,
      channel: this.fresh('public'),
    });
    const said = fromMrkdwn((await this.h.slack.waitFor(() => this.ephemeralsOf(user)[seen])).text);
    const file = /```\n([\s\S]*)```/.exec(said)?.[1];
    return { said: said.split('\n')[0] ?? '', ...(file === undefined ? {} : { file }) };
  }

  idOf(who: Who): string {
    return PEOPLE[who];
  }

  async restart(): Promise<void> {
    await this.h.restart();
    this.watch.watch(this.h.app.core);
    this.files = watchFileEvents(this.h.app.core);
  }

  async replaceWorker(): Promise<void> {
    if (!this.redis) throw new Error('slack flow driver: not split');
    await this.worker?.stop();
    this.worker = await startWorkerBeside(this.h.config);
    this.watch.watch(this.worker.core);
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    await this.h.close();
    await this.redis?.stop();
  }
}
