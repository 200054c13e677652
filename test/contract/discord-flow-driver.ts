// The interaction contract's driver on Discord: people post, use message commands and press
// buttons through the Discord emulator; the bot runs unmodified discord.js. The private place is a
// channel only Bob (the asker) and Alice (the server's owner) may view; questions from elsewhere go
// to the server's other channel. With `split`, a gateway takes Discord's events and a worker
// (replaceable) runs the messages, on a Redis of the driver's own.

import type { RunningApp } from '../../src/compose/app.ts';
import { type CommandName, command } from '../../src/core/commands.ts';
import type { DiscordEmulator, DiscordMessage } from '../emulators/discord/index.ts';
import { Perm } from '../emulators/discord/permissions.ts';
import { watchFileEvents } from '../support/file-events.ts';
import { type Harness, startHarness, startWorkerBeside } from '../support/harness.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';
import { contractOverrides } from './config.ts';
import { pressOrReplay } from './discord-press.ts';
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

interface DiscordAsked extends Asked {
  channel: string;
  /** The message that holds the confirmation. */
  message: string;
}

/** The settings form: the interaction that opened its modal. */
interface DiscordSettings extends DiscordAsked {
  opener: string;
}

/** Manage Channels (and viewing and sending): who may change a channel's settings. */
const MANAGE_CHANNELS = String((1n << 4n) | (1n << 10n) | (1n << 11n));

type Part = {
  custom_id?: string;
  options?: { value: string; default?: boolean }[];
  component?: Part;
  components?: Part[];
};

/** A modal's selects as the person leaves them: their default options picked. */
function picked(modal: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const visit = (c: Part) => {
    if (c.custom_id && c.options)
      out[c.custom_id] = c.options.filter((o) => o.default).map((o) => o.value);
    if (c.component) visit(c.component);
    for (const x of c.components ?? []) visit(x);
  };
  for (const c of (modal.components as Part[] | undefined) ?? []) visit(c);
  return out;
}

type Row = { components?: { label?: string; custom_id?: string }[] };

/** An answer in a thread of its own. */
interface DiscordAnswered extends Answered {
  thread: string;
  message: string;
}

const votesOf = (m: DiscordMessage | undefined) =>
  ((m?.components ?? []) as Row[])
    .flatMap((r) => r.components ?? [])
    .filter((c) => c.custom_id?.startsWith('t1.feedback.'));

/** Manage Server (and viewing and sending): who may erase the server's data. */
const MANAGE_GUILD = String((1n << 5n) | (1n << 10n) | (1n << 11n));

const later = (id: string, than: string) => BigInt(id) > BigInt(than);
const EPHEMERAL = 1 << 6;

export const makeDiscordFlowDriver: MakeFlowDriver = async (opts = {}) => {
  const redis = opts.split ? await startPrivateRedis() : undefined;
  const h = await startHarness({
    discord: true,
    ...(redis ? { env: { THREADMIND_ROLE: 'gateway', STORE_URL: redis.url } } : {}),
    overrides: contractOverrides({
      ...(redis ? { scale: { queue: { name: `dflows-${process.pid}`, orderPollMs: 20 } } } : {}),
      ...opts.overrides,
    }),
  });
  const d = new DiscordFlowDriver(h, redis);
  if (redis) await d.replaceWorker();
  // The gateway connects once it holds the lease (split roles) or once logged in.
  await h.discord?.waitFor(() => h.discord?.gatewaySessions().connected === 1, 15_000);
  return d;
};

class DiscordFlowDriver implements FlowDriver {
  readonly name = 'discord';
  readonly privatePlaces = true;
  private readonly h: Harness;
  private readonly d: DiscordEmulator;
  private readonly redis: TestRedis | undefined;
  private readonly watch = new CoreWatch();
  private files;
  private worker: RunningApp | undefined;
  private readonly guild: string;
  private readonly publicChannel: string;
  private readonly privateChannel: string;
  private readonly people: Record<Who, string>;
  /** The last 👎 press per person, whose modal a reason is sent from. */
  private readonly downs = new Map<string, string>();

  constructor(h: Harness, redis: TestRedis | undefined) {
    this.h = h;
    this.redis = redis;
    if (!h.discord) throw new Error('discord flow driver: the harness has no Discord');
    this.d = h.discord;
    const guild = this.d.guilds[0];
    const [alice, bob, mina] = this.d.users;
    if (!guild?.channels[1] || !guild.channels[0] || !alice || !bob || !mina)
      throw new Error('discord flow driver: unexpected seed');
    this.guild = guild.id;
    this.publicChannel = guild.channels[0].id;
    this.privateChannel = guild.channels[1].id;
    // Bob asks (an ordinary member); Alice owns the server, so she sees the private channel too.
    this.people = { starter: bob.id, other: alice.id, third: mina.id };
    this.d.setPermissionOverwrites(this.privateChannel, [
      { id: guild.id, type: 0, allow: '0', deny: String(Perm.ViewChannel) },
      { id: bob.id, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
      { id: this.d.botUserId, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
    ]);
    this.watch.watch(h.app.core);
    this.files = watchFileEvents(h.app.core);
  }

  get llm() {
    return this.h.llm;
  }

  private channelOf(where: 'private' | 'public'): string {
    return where === 'private' ? this.privateChannel : this.publicChannel;
  }

  private botAfter(channel: string, after: string): DiscordMessage[] {
    return this.d
      .messages(channel)
      .filter((m) => m.author.id === this.d.botUserId && later(m.id, after));
  }

  private post(
    channel: string,
    content: string,
    o: { as?: Who; mention?: boolean; file?: Attachment } = {},
  ) {
    return this.d.userMessage({
      guildId: this.guild,
      channelId: channel,
      userId: this.people[o.as ?? 'starter'],
      content,
      mentionsBot: o.mention === true,
      attachments: o.file ? [{ filename: o.file.name, bytes: o.file.bytes }] : [],
    });
  }

  async shareTyped(file: Attachment, where: 'private' | 'public'): Promise<Asked> {
    const channel = this.channelOf(where);
    const m = await this.post(channel, 'share this with the server', { mention: true, file });
    await this.watch.handled(m.id);
    const reply = await this.d.waitFor(() => this.botAfter(channel, m.id).at(-1));
    const asked: DiscordAsked = { said: reply.content, channel, message: reply.id };
    return asked;
  }

  async shareFromMessage(
    file: Attachment | undefined,
    where: 'private' | 'public',
  ): Promise<Asked> {
    const channel = this.channelOf(where);
    const m = await this.post(channel, 'numbers attached', file ? { file } : {});
    if (file) await this.files.done(m.id);
    const { id } = await this.d.messageCommand({
      channelId: channel,
      messageId: m.id,
      userId: this.people.starter,
      name: 'Share file with server',
    });
    const reply = await this.d.waitFor(() => {
      const original = this.d.interactions().find((i) => i.id === id)?.original;
      return original?.content ? original : undefined;
    });
    const asked: DiscordAsked = { said: reply.content, channel, message: reply.id };
    return asked;
  }

  private messageOf(a: DiscordAsked): DiscordMessage | undefined {
    return this.d.messages(a.channel).find((m) => m.id === a.message);
  }

  confirmation(asked: Asked): SeenConfirmation {
    const m = this.messageOf(asked as DiscordAsked);
    const buttons = ((m?.components ?? []) as Row[]).flatMap((r) =>
      (r.components ?? []).map((c) => c.label ?? ''),
    );
    const onlyAsker = ((m?.flags ?? 0) & EPHEMERAL) !== 0;
    return { text: m?.content ?? '', buttons, onlyAsker };
  }

  refOf(asked: Asked, button: Button): string {
    const m = this.messageOf(asked as DiscordAsked);
    const labels = new Set(button === 'confirm' ? ['Share', 'Erase'] : ['Cancel']);
    const found = ((m?.components ?? []) as Row[])
      .flatMap((r) => r.components ?? [])
      .find((c) => labels.has(c.label ?? ''));
    if (!found?.custom_id) throw new Error(`discord flow driver: no ${button} button`);
    return found.custom_id;
  }

  /** A press's outcome: its own reply (ephemeral), or the confirmation replaced. */
  private told(clickId: string, a: DiscordAsked, before: string): Promise<string> {
    return this.d.waitFor(() => {
      const i = this.d.interactions().find((x) => x.id === clickId);
      if (!i?.acknowledgedAt) return undefined;
      const own =
        i.followups.at(-1) ??
        (i.responseType === 4 || i.responseType === 5 ? i.original : undefined);
      if (own?.content) return own.content;
      const now = this.messageOf(a);
      return JSON.stringify(now) !== before ? (now?.content ?? '') : undefined;
    });
  }

  async askErase(as: 'admin' | 'member'): Promise<Asked> {
    const admin = as === 'admin';
    const { id } = await this.d.slashCommand({
      guildId: this.guild,
      channelId: this.publicChannel,
      userId: admin ? this.people.other : this.people.starter,
      name: 'erase-server',
      memberPermissions: admin ? MANAGE_GUILD : '0',
    });
    const reply = await this.d.waitFor(() => {
      const original = this.d.interactions().find((i) => i.id === id)?.original;
      return original?.content ? original : undefined;
    });
    const asked: DiscordAsked = {
      said: reply.content,
      channel: this.publicChannel,
      message: reply.id,
    };
    return asked;
  }

  async confirmErase(
    asked: Asked,
    word: string,
    tamper?: (ref: string) => string,
  ): Promise<string> {
    const a = asked as DiscordAsked;
    const before = JSON.stringify(this.messageOf(a));
    const ref = this.refOf(a, 'confirm');
    const click = await pressOrReplay(
      this.d,
      { channelId: a.channel, messageId: a.message, userId: this.people.other },
      tamper ? tamper(ref) : ref,
      MANAGE_GUILD,
    );
    // Erase opens a modal for the word; a refused press answers at once.
    const opened = await this.d.waitFor(() => {
      const i = this.d.interactions().find((x) => x.id === click.id);
      return i?.acknowledgedAt ? i : undefined;
    });
    if (!opened.modal) return this.told(click.id, a, before);
    const submit = await this.d.modalSubmit({ interactionId: click.id, values: { word } });
    return this.told(submit.id, a, before);
  }

  async cancelErase(asked: Asked): Promise<string> {
    const a = asked as DiscordAsked;
    const before = JSON.stringify(this.messageOf(a));
    const click = await this.d.componentInteraction({
      channelId: a.channel,
      messageId: a.message,
      userId: this.people.other,
      customId: this.refOf(a, 'cancel'),
      memberPermissions: MANAGE_GUILD,
    });
    return this.told(click.id, a, before);
  }

  async press(
    asked: Asked,
    button: Button,
    as: Who = 'starter',
    tamper?: (ref: string) => string,
  ): Promise<string> {
    const a = asked as DiscordAsked;
    const user = this.people[as];
    const ref = this.refOf(a, button);
    const since = this.watch.interactions;
    const before = JSON.stringify(this.messageOf(a));
    const click = await pressOrReplay(
      this.d,
      { channelId: a.channel, messageId: a.message, userId: user },
      tamper ? tamper(ref) : ref,
    );
    await this.watch.interacted(since, user);
    return this.told(click.id, a, before);
  }

  async typeConfirm(asked: Asked, as: Who = 'starter'): Promise<string> {
    const a = asked as DiscordAsked;
    const m = await this.post(a.channel, 'confirm share', { as, mention: true });
    await this.watch.handled(m.id);
    const said = await this.d.waitFor(() => {
      const fresh = this.botAfter(a.channel, m.id);
      return fresh.length > 0 ? fresh : undefined;
    });
    return said.map((x) => x.content).join('\n');
  }

  async openSettings(as: 'admin' | 'member'): Promise<Asked> {
    const admin = as === 'admin';
    const { id } = await this.d.slashCommand({
      guildId: this.guild,
      channelId: this.publicChannel,
      userId: admin ? this.people.other : this.people.starter,
      name: 'settings',
      options: [{ name: 'set', type: 1 }],
      memberPermissions: admin ? MANAGE_CHANNELS : '0',
    });
    const i = await this.d.waitFor(() => {
      const x = this.d.interactions().find((y) => y.id === id);
      return x?.modal || x?.original?.content ? x : undefined;
    });
    const asked: DiscordSettings = {
      said: i.original?.content ?? '',
      channel: this.publicChannel,
      message: '',
      opener: id,
    };
    return asked;
  }

  async saveSettings(asked: Asked, values: Record<string, string>): Promise<string> {
    const a = asked as DiscordSettings;
    const modal = this.d.interactions().find((x) => x.id === a.opener)?.modal;
    if (!modal) throw new Error('discord flow driver: no settings modal');
    const submit = await this.d.modalSubmit({
      interactionId: a.opener,
      values: { ...picked(modal), ...values },
    });
    return this.d.waitFor(() => {
      const i = this.d.interactions().find((x) => x.id === submit.id);
      return i?.original?.content || i?.followups.at(-1)?.content || undefined;
    });
  }

  async askWhereSettings(question: string): Promise<void> {
    const thread = await this.d.userThread({
      channelId: this.publicChannel,
      userId: this.people.third,
      name: 'about settings',
    });
    const m = await this.post(thread.id, question, { as: 'third', mention: true });
    await this.watch.handled(m.id);
  }

  /** In a thread of its own: a channel's earlier messages (and their files) are not read along. */
  async askElsewhere(question: string): Promise<string> {
    const thread = await this.d.userThread({
      channelId: this.publicChannel,
      userId: this.people.third,
      name: 'a question',
    });
    const m = await this.post(thread.id, question, { as: 'third', mention: true });
    await this.watch.handled(m.id);
    return this.botAfter(thread.id, m.id)
      .map((x) => x.content)
      .join('\n');
  }

  async askInAnotherProject(question: string): Promise<string> {
    const other = this.d.guilds[1];
    const channel = other?.channels[0]?.id;
    if (!other || !channel) throw new Error('discord flow driver: no second server');
    const m = await this.d.userMessage({
      guildId: other.id,
      channelId: channel,
      userId: this.people.third,
      content: question,
      mentionsBot: true,
    });
    await this.watch.handled(m.id);
    const thread = await this.d.waitFor(() =>
      this.d.threads().find((t) => t.starterMessageId === m.id),
    );
    return this.botAfter(thread.id, '0')
      .map((x) => x.content)
      .join('\n');
  }

  async askForAnswer(question: string): Promise<Answered> {
    this.h.llm.setResponder(() => ({ content: `About "${question}": the limit is 5.` }));
    const thread = await this.d.userThread({
      channelId: this.publicChannel,
      userId: this.people.third,
      name: 'a question',
    });
    const m = await this.post(thread.id, question, { as: 'third', mention: true });
    await this.watch.handled(m.id);
    const answer = await this.d.waitFor(() =>
      this.botAfter(thread.id, m.id).findLast((x) => votesOf(x).length > 0),
    );
    const a: DiscordAnswered = { text: answer.content, thread: thread.id, message: answer.id };
    return a;
  }

  async runCommand(a: Answered, name: CommandName, text = ''): Promise<string> {
    const s = a as DiscordAnswered;
    const { id } = await this.d.slashCommand({
      guildId: this.guild,
      channelId: s.thread,
      userId: this.people.third,
      name,
      options: name === 'ask' ? [{ name: 'question', type: 3, value: text }] : [],
    });
    // A flow is over once it has answered; a conversation's command once handled.
    if ('intent' in command(name).starts) await this.watch.handled(id);
    const reply = await this.d.waitFor(() => {
      const original = this.d.interactions().find((i) => i.id === id)?.original;
      return original?.content ? original : undefined;
    });
    return reply.content;
  }

  async askAbout(text: string): Promise<string> {
    const m = await this.post(this.publicChannel, text, { as: 'other' });
    await this.d.messageCommand({
      channelId: this.publicChannel,
      messageId: m.id,
      userId: this.people.starter,
      name: command('ask-about').names?.discord ?? '',
    });
    // A thread started from a message takes the message's id.
    const answer = await this.d.waitFor(() =>
      this.botAfter(m.id, m.id).findLast((x) => votesOf(x).length > 0),
    );
    return answer.content;
  }

  private answerOf(a: Answered): DiscordMessage | undefined {
    const s = a as DiscordAnswered;
    return this.d.messages(s.thread).find((m) => m.id === s.message);
  }

  voteButtons(a: Answered): string[] {
    return votesOf(this.answerOf(a)).map((c) => c.label ?? '');
  }

  async vote(a: Answered, vote: VoteButton, as: Who = 'starter'): Promise<string> {
    const s = a as DiscordAnswered;
    const button = votesOf(this.answerOf(a))[vote === 'up' ? 0 : 1];
    const user = this.people[as];
    const click = await this.d.componentInteraction({
      channelId: s.thread,
      messageId: s.message,
      userId: user,
      customId: button?.custom_id ?? '',
    });
    const i = await this.d.waitFor(() => {
      const x = this.d.interactions().find((y) => y.id === click.id);
      return x?.acknowledgedAt && (x.modal || x.original?.content) ? x : undefined;
    });
    if (i.modal) {
      this.downs.set(user, click.id);
      return JSON.stringify(i.modal);
    }
    return i.original?.content ?? '';
  }

  async giveReason(_a: Answered, reason: string, as: Who = 'starter'): Promise<string> {
    const opened = this.downs.get(this.people[as]);
    if (!opened) throw new Error('discord flow driver: no reason form');
    const sent = await this.d.modalSubmit({ interactionId: opened, values: { reason } });
    const i = await this.d.waitFor(() => {
      const x = this.d.interactions().find((y) => y.id === sent.id);
      return x?.original?.content ? x : undefined;
    });
    return i.original?.content ?? '';
  }

  async exportFeedback(as: 'admin' | 'member', format: 'csv' | 'json'): Promise<Exported> {
    const admin = as === 'admin';
    const { id } = await this.d.slashCommand({
      guildId: this.guild,
      channelId: this.publicChannel,
      userId: admin ? this.people.other : this.people.starter,
      name: 'feedback-export',
      options: [{ name: 'format', type: 3, value: format }],
      memberPermissions: admin ? MANAGE_GUILD : '0',
    });
    const reply = await this.d.waitFor(() => {
      const original = this.d.interactions().find((i) => i.id === id)?.original;
      return original?.content ? original : undefined;
    });
    const url = reply.attachments?.[0]?.url;
    const file = url ? await (await fetch(url)).text() : undefined;
    return { said: reply.content, ...(file === undefined ? {} : { file }) };
  }

  idOf(who: Who): string {
    return this.people[who];
  }

  async restart(): Promise<void> {
    await this.h.restart();
    this.watch.watch(this.h.app.core);
    this.files = watchFileEvents(this.h.app.core);
    await this.d.waitFor(() => this.d.gatewaySessions().connected >= 1);
  }

  async replaceWorker(): Promise<void> {
    if (!this.redis) throw new Error('discord flow driver: not split');
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
