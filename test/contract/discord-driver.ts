// The contract's driver on Discord: people act through the Discord emulator (gateway events,
// slash commands), the bot through unmodified discord.js. People are ordinary members of the first
// guild (no Manage Threads): questions go to one channel, files dropped at a top level to the other.

import { SessionHistory } from '../../src/store/session-history.ts';
import type { DiscordEmulator, DiscordMessage } from '../emulators/discord/index.ts';
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
import { discordPings } from './pings.ts';

const DISCORD_LIMIT = 2000;

/**
 * A conversation hangs on a top-level message: the bot answers in a thread started from it (the
 * thread takes the message's id) or, for what needs no thread, in the channel after it.
 */
interface DiscordThread extends Thread {
  root: string;
  /** The channel the root message is in. */
  parentId: string;
  /** A thread people opened themselves (not from the bot's answer). */
  channel?: string;
}

/** View Channel, Send Messages and Manage Channels: someone who may change a channel's settings. */
const MANAGER_PERMISSIONS = String((1n << 10n) | (1n << 11n) | (1n << 4n));

interface DiscordMark {
  calls: number;
  messages: Set<string>;
}

const later = (id: string, than: string) => BigInt(id) > BigInt(than);

export const makeDiscordDriver: MakeDriver<ThreadDriver> = async (opts = {}) => {
  const h = await startHarness({ discord: true, overrides: contractOverrides(opts.overrides) });
  if (opts.models) h.llm.setModels(opts.models);
  return new DiscordDriver(h);
};

class DiscordDriver implements ThreadDriver {
  readonly name = 'discord';
  readonly longestMessage = DISCORD_LIMIT;
  private readonly h: Harness;
  private readonly d: DiscordEmulator;
  private readonly files;
  /** Flow commands (no turn, no `handled`): their answers. */
  private readonly flowAnswers = new Map<string, Promise<unknown>>();
  private readonly guildId: string;
  private readonly askChannel: string;
  private readonly fileChannel: string;
  private readonly starter: string;
  private readonly other: string;
  private readonly third: string;
  private readonly threads = new Map<string, DiscordThread>();
  private readonly deliveries = new Map<string, number>();
  private readonly channelOf = new Map<string, string>();
  private readonly carriesFiles = new Set<string>();

  constructor(h: Harness) {
    this.h = h;
    if (!h.discord) throw new Error('discord driver: the harness has no Discord');
    this.d = h.discord;
    this.files = watchFileEvents(h.app.core);
    const guild = this.d.guilds[0];
    const [alice, bob, mina] = this.d.users;
    if (!guild?.channels[1] || !alice || !bob || !mina)
      throw new Error('discord driver: unexpected seed');
    this.third = mina.id;
    this.guildId = guild.id;
    this.fileChannel = guild.channels[0]?.id ?? '';
    this.askChannel = guild.channels[1].id;
    // Alice owns the guild (every permission); Bob is an ordinary member, as most askers are.
    this.starter = bob.id;
    this.other = alice.id;
  }

  get llm() {
    return this.h.llm;
  }

  private hangOn(root: string, parentId: string, id = root): DiscordThread {
    const t: DiscordThread = { id, root, parentId };
    this.threads.set(t.id, t);
    return t;
  }

  private of(thread: Thread): DiscordThread {
    const t = this.threads.get(thread.id);
    if (!t) throw new Error(`discord driver: unknown thread ${thread.id}`);
    return t;
  }

  private startedThread(t: DiscordThread): string | undefined {
    return this.d.threads().find((x) => x.starterMessageId === t.root)?.id;
  }

  /** The thread the bot started for it (waiting for the bot to start it). */
  private threadId(thread: Thread): Promise<string> {
    const t = this.of(thread);
    if (t.channel) return Promise.resolve(t.channel);
    return this.d.waitFor(() => this.startedThread(t));
  }

  private person(who: Who | undefined): string {
    return who === 'other' ? this.other : who === 'third' ? this.third : this.starter;
  }

  private async say(
    channelId: string,
    content: string,
    o: { userId?: string; mention?: boolean; files?: Attachment[] } = {},
  ): Promise<DiscordMessage> {
    const m = await this.d.userMessage({
      guildId: this.guildId,
      channelId,
      userId: o.userId ?? this.starter,
      content,
      mentionsBot: o.mention === true,
      attachments: (o.files ?? []).map((f) => ({ filename: f.name, bytes: f.bytes })),
    });
    this.deliveries.set(m.id, 1);
    this.channelOf.set(m.id, channelId);
    return m;
  }

  async mention(text: string, opts: { files?: Attachment[] } = {}): Promise<Posted> {
    const m = await this.say(this.askChannel, text, { mention: true, ...opts });
    return { thread: this.hangOn(m.id, this.askChannel), messageId: m.id };
  }

  async followUp(
    thread: Thread,
    text: string,
    opts: { mention?: boolean; as?: Who; naming?: Who } = {},
  ): Promise<Posted> {
    const named = opts.naming ? `<@${this.person(opts.naming)}> ${text}` : text;
    const m = await this.say(await this.threadId(thread), named, {
      userId: this.person(opts.as),
      mention: opts.mention === true,
    });
    return { thread, messageId: m.id };
  }

  async discussion(lines: Line[]): Promise<{ thread: Thread; posted: Posted[] }> {
    const first = lines[0];
    if (!first) throw new Error('discord driver: a discussion needs a first line');
    const opened = await this.d.userThread({
      channelId: this.askChannel,
      userId: this.person(first.as),
      name: 'a discussion',
    });
    const thread: DiscordThread = {
      id: opened.id,
      root: opened.id,
      parentId: this.askChannel,
      channel: opened.id,
    };
    this.threads.set(thread.id, thread);
    const posted: Posted[] = [];
    for (const line of lines) {
      const m = await this.say(opened.id, line.text, {
        userId: this.person(line.as),
        ...(line.files ? { files: line.files } : {}),
      });
      if (line.files?.length) this.carriesFiles.add(m.id);
      posted.push({ thread, messageId: m.id });
    }
    return { thread, posted };
  }

  nameOf(who: Who): string {
    const id = this.person(who);
    const u = this.d.users.find((x) => x.id === id);
    return u ? u.username.charAt(0).toUpperCase() + u.username.slice(1) : id;
  }

  async editMessage(p: Posted, text: string): Promise<void> {
    const taken = changeTakenIn(this.h.app.core, p.messageId);
    await this.d.editUserMessage(this.channelOf.get(p.messageId) ?? '', p.messageId, text);
    await taken;
  }

  async deleteMessage(p: Posted): Promise<void> {
    const taken = changeTakenIn(this.h.app.core, p.messageId);
    await this.d.deleteUserMessage(this.channelOf.get(p.messageId) ?? '', p.messageId);
    await taken;
  }

  readCalls(): number {
    return this.d.calls.filter(
      (c) => c.method === 'GET' && /^\/channels\/\d+\/messages(\/\d+)?$/.test(c.route),
    ).length;
  }

  async storedHistory(thread: Thread): Promise<string> {
    const t = this.of(thread);
    const session = t.channel ?? this.startedThread(t) ?? t.root;
    const key = `discord:${this.guildId}:${t.parentId}:${session}`;
    const history = new SessionHistory(this.h.app.store, 1000);
    return JSON.stringify([...(await history.archived(key)), ...(await history.load(key))]);
  }

  /** Runs /settings and returns what the person was told (only they see it). */
  private async settingsCommand(
    thread: Thread,
    sub: { name: string; type: number; options?: { name: string; type: number; value: unknown }[] },
    admin: boolean,
  ): Promise<string> {
    const { id } = await this.d.slashCommand({
      guildId: this.guildId,
      channelId: this.of(thread).parentId,
      userId: admin ? this.other : this.starter,
      name: 'settings',
      options: [sub],
      ...(admin ? { memberPermissions: MANAGER_PERMISSIONS } : {}),
    });
    return this.d.waitFor(() => {
      const i = this.d.interactions().find((x) => x.id === id);
      return i?.ephemeral && i.original?.content ? i.original.content : undefined;
    });
  }

  changeSettings(thread: Thread, as: 'admin' | 'member', change: SettingsChange): Promise<string> {
    const options = [
      ...(change.replyMode ? [{ name: 'reply_mode', type: 3, value: change.replyMode }] : []),
      ...(change.instructions !== undefined
        ? [{ name: 'instructions', type: 3, value: change.instructions || '-' }]
        : []),
      ...(change.model !== undefined
        ? [{ name: 'model', type: 3, value: change.model || 'default' }]
        : []),
    ];
    return this.settingsCommand(thread, { name: 'set', type: 1, options }, as === 'admin');
  }

  async redeliver(messageId: string): Promise<void> {
    const channelId = this.channelOf.get(messageId);
    if (!channelId) throw new Error(`discord driver: ${messageId} was not posted by this driver`);
    // discord.js drops a MESSAGE_CREATE for a message it still holds in its cache, so the bot's own
    // de-duplication only meets repeats that get past it: once the cache let the message go (it
    // keeps 200 per channel), or in a restarted or second replica. Replay from there, after the
    // first delivery has reached the client.
    const client = this.h.app.discord?.client;
    if (!client) throw new Error('discord driver: the bot runs no Discord client');
    const cache = await this.d.waitFor(() => {
      const channel = client.channels.cache.get(channelId);
      return channel?.isTextBased() && channel.messages.cache.has(messageId)
        ? channel.messages.cache
        : undefined;
    });
    cache.delete(messageId);
    this.d.redispatchMessageCreate(channelId, messageId);
    this.deliveries.set(messageId, (this.deliveries.get(messageId) ?? 0) + 1);
  }

  async uploadFile(where: Thread | 'channel', file: Attachment): Promise<Posted> {
    if (where !== 'channel') {
      const m = await this.say(await this.threadId(where), '', { files: [file] });
      this.carriesFiles.add(m.id);
      return { thread: where, messageId: m.id };
    }
    // At a channel's top level the bot answers in the channel itself, after the message.
    const m = await this.say(this.fileChannel, '', { files: [file] });
    this.carriesFiles.add(m.id);
    return { thread: this.hangOn(m.id, this.fileChannel), messageId: m.id };
  }

  shareFile(file: Attachment): Promise<Posted> {
    return this.mention('share this with the server', { files: [file] });
  }

  private async command(
    channelId: string,
    name: string,
    options: { name: string; type: number; value: unknown }[] = [],
  ): Promise<string> {
    const { id } = await this.d.slashCommand({
      guildId: this.guildId,
      channelId,
      userId: this.starter,
      name,
      ...(options.length > 0 ? { options } : {}),
    });
    this.deliveries.set(id, 1);
    this.channelOf.set(id, channelId);
    return id;
  }

  async askSummary(thread: Thread): Promise<Posted> {
    return { thread, messageId: await this.command(await this.threadId(thread), 'summarize') };
  }

  async forget(thread: Thread): Promise<Posted> {
    return {
      thread,
      messageId: this.flowCommand(await this.command(await this.threadId(thread), 'forget')),
    };
  }

  async listFiles(thread: Thread): Promise<Posted> {
    return {
      thread,
      messageId: this.flowCommand(await this.command(await this.threadId(thread), 'files')),
    };
  }

  /** A command that starts a flow (no turn): done once the interaction has its answer. */
  private flowCommand(id: string): string {
    this.flowAnswers.set(
      id,
      this.d.waitFor(() => this.d.interactions().find((i) => i.id === id)?.original?.content),
    );
    return id;
  }

  async askCommand(text: string): Promise<Posted> {
    const id = await this.command(this.askChannel, 'ask', [
      { name: 'question', type: 3, value: text },
    ]);
    // At a top level /ask answers in a thread started from its first reply.
    const reply = await this.d.waitFor(
      () => this.d.interactions().find((i) => i.id === id)?.original?.id,
    );
    return { thread: this.hangOn(reply, this.askChannel, id), messageId: id };
  }

  async handled(messageId: string, deliveries?: number) {
    if (this.flowAnswers.has(messageId)) {
      await this.flowAnswers.get(messageId);
      return [];
    }
    const events = await this.h.handled(
      messageId,
      deliveries ?? this.deliveries.get(messageId) ?? 1,
    );
    if (this.carriesFiles.has(messageId)) await this.files.done(messageId);
    return events.map((e) => e.handled);
  }

  private isBot(m: DiscordMessage): boolean {
    return m.author.id === this.d.botUserId;
  }

  private botIn(channelId: string, after: string): DiscordMessage[] {
    return this.d.messages(channelId).filter((m) => this.isBot(m) && later(m.id, after));
  }

  botMessages(thread: Thread): BotMessage[] {
    const t = this.of(thread);
    const started = t.channel ?? this.startedThread(t);
    const messages = started ? this.botIn(started, '0') : this.botIn(t.parentId, t.root);
    return messages.map((m) => ({ text: m.content, limit: DISCORD_LIMIT }));
  }

  strayBotMessages(thread: Thread): string[] {
    const t = this.of(thread);
    return this.botIn(t.parentId, t.root).map((m) => m.content);
  }

  privateMessages(): string[] {
    return this.d
      .messages(this.d.dmChannelId(this.starter))
      .filter((m) => this.isBot(m))
      .map((m) => m.content);
  }

  turnsWaiting(): number {
    return this.h.app.runner.waitingTurns;
  }

  usageBooked(): Promise<void> {
    return this.h.app.usage.settled();
  }

  reactions(messageId: string): ReactionKind[] {
    const channelId = this.channelOf.get(messageId) ?? '';
    const m = this.d.messages(channelId).find((x) => x.id === messageId);
    return (m?.reactions ?? [])
      .filter((r) => r.me)
      .map((r) => {
        const name = r.emoji.name ?? '';
        if (name.startsWith('✅')) return 'ok';
        return name.startsWith('⚠') ? 'warning' : 'other';
      });
  }

  mark(): Mark {
    const messages = new Set(
      this.d
        .allMessages()
        .filter((m) => this.isBot(m))
        .map((m) => m.id),
    );
    return { calls: this.d.calls.length, messages } satisfies DiscordMark;
  }

  pings(since?: Mark): string[] {
    const from = (since as DiscordMark | undefined) ?? { calls: 0, messages: new Set<string>() };
    return discordPings(
      this.d.calls.slice(from.calls),
      this.d.allMessages().filter((m) => this.isBot(m) && !from.messages.has(m.id)),
    );
  }

  close(): Promise<void> {
    return this.h.close();
  }
}
