// The Discord emulator against Discord's own clients: the unmodified discord.js Client (REST,
// Gateway, caches, interactions) and @discordjs/rest's REST for command registration.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mock, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import {
  type ChatInputCommandInteraction,
  Client,
  type ClientOptions,
  DiscordAPIError,
  GatewayIntentBits,
  type Message,
  Partials,
  REST,
  Routes,
  type TextChannel,
  type ThreadChannel,
} from 'discord.js';
import WebSocket from 'ws';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

/** One turn of the event loop (a real one: tests that mock timers leave setImmediate alone). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

type Cleanup = (fn: () => Promise<unknown>) => void;
interface TestCtx {
  after: (fn: () => Promise<void>) => void;
}

/** Cleanups run last-registered first, so clients disconnect before the emulator closes. */
function cleanups(t: TestCtx): Cleanup {
  const stack: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const fn of stack.reverse()) await fn();
  });
  return (fn) => stack.push(fn);
}

async function emulator(defer: Cleanup, opts = {}): Promise<DiscordEmulator> {
  const emu = await startDiscordEmulator(opts);
  defer(() => emu.close());
  return emu;
}

const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

/** A logged-in, ready discord.js Client configured only with the emulator's REST base. */
async function client(
  emu: DiscordEmulator,
  defer: Cleanup,
  extra: Partial<ClientOptions> = {},
): Promise<Client<true>> {
  const c = new Client({
    intents: INTENTS,
    partials: [Partials.Channel],
    rest: { api: emu.apiUrl, timeout: 5000, retries: 1 },
    ...extra,
  });
  defer(() => c.destroy());
  const ready = once(c, 'clientReady');
  await c.login(emu.botToken);
  await ready;
  return c as Client<true>;
}

function rest(emu: DiscordEmulator): REST {
  return new REST({ api: emu.apiUrl, retries: 0 }).setToken(emu.botToken);
}

function firstChannel(emu: DiscordEmulator, guild = 0): { guildId: string; channelId: string } {
  const g = emu.guilds[guild];
  assert.ok(g?.channels[0]);
  return { guildId: g.id, channelId: g.channels[0].id };
}

async function rejection(p: Promise<unknown>): Promise<DiscordAPIError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof DiscordAPIError, `expected a DiscordAPIError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

test('login: READY then GUILD_CREATE fill the caches with both guilds and their channels', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer, { heartbeatIntervalMs: 200 });
  assert.match(emu.botUserId, /^\d{17,19}$/);
  const c = await client(emu, defer);
  assert.equal(c.user.id, emu.botUserId);
  assert.equal(c.user.bot, true);
  assert.equal(c.application.id, emu.applicationId);
  assert.equal(c.guilds.cache.size, 2);
  for (const g of emu.guilds) {
    const guild = c.guilds.cache.get(g.id);
    assert.ok(guild?.available, `guild ${g.name} cached and available`);
    assert.equal(guild.name, g.name);
    for (const ch of g.channels) assert.ok(guild.channels.cache.get(ch.id)?.isTextBased());
    assert.ok(guild.members.me, 'the bot member comes with GUILD_CREATE');
    assert.ok(guild.roles.everyone);
  }
  assert.equal(emu.gatewaySessions().identified, 1);
  assert.ok(emu.calls.some((x) => x.method === 'GET' && x.route === '/gateway/bot'));
  await emu.waitFor(() => c.ws.ping >= 0, 2000);
});

test('messageCreate: user messages (mentions, content) and the bot’s own echo', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { guildId, channelId } = firstChannel(emu);
  const alice = emu.users[0]?.id ?? '';
  const received: Message[] = [];
  c.on('messageCreate', (m) => received.push(m));

  await emu.userMessage({
    guildId,
    channelId,
    userId: alice,
    content: 'hello bot',
    mentionsBot: true,
  });
  const m = await emu.waitFor(() => received.find((x) => x.author.id === alice));
  assert.equal(m.content, `<@${emu.botUserId}> hello bot`);
  assert.ok(m.mentions.users.has(emu.botUserId));
  assert.equal(m.guildId, guildId);
  assert.ok(m.member, 'guild messages carry the author member');

  const sent = await (m.channel as TextChannel).send('hi there');
  const echo = await emu.waitFor(() => received.find((x) => x.id === sent.id));
  assert.equal(echo.author.id, emu.botUserId);
  assert.deepEqual(
    emu.messages(channelId).map((x) => x.content),
    [`<@${emu.botUserId}> hello bot`, 'hi there'],
  );
});

test('without MESSAGE_CONTENT, content is blank unless the bot is mentioned', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer, {
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
  });
  const { guildId, channelId } = firstChannel(emu);
  const userId = emu.users[1]?.id ?? '';
  const received: Message[] = [];
  c.on('messageCreate', (m) => received.push(m));
  await emu.userMessage({ guildId, channelId, userId, content: 'secret' });
  await emu.userMessage({ guildId, channelId, userId, content: 'ping', mentionsBot: true });
  await emu.waitFor(() => received.length === 2);
  assert.deepEqual(
    received.map((m) => m.content),
    ['', `<@${emu.botUserId}> ping`],
  );
});

test('slash command: deferReply then editReply within 3 s; REST registers the command', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const { guildId, channelId } = firstChannel(emu);
  const registered = (await rest(emu).put(
    Routes.applicationGuildCommands(emu.applicationId, guildId),
    {
      body: [
        {
          name: 'ask',
          description: 'Ask the model',
          options: [{ name: 'question', description: 'q', type: 3, required: true }],
        },
      ],
    },
  )) as { id: string; name: string }[];
  assert.equal(registered[0]?.name, 'ask');
  assert.match(registered[0]?.id ?? '', /^\d{17,19}$/);
  assert.equal(emu.registeredCommands(guildId).length, 1);

  const c = await client(emu, defer);
  const seen: ChatInputCommandInteraction[] = [];
  c.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    seen.push(i);
    await i.deferReply();
    await i.editReply(`answer to ${i.options.getString('question', true)}`);
  });
  const userId = emu.users[0]?.id ?? '';
  const h = await emu.slashCommand({
    guildId,
    channelId,
    userId,
    name: 'ask',
    options: [{ name: 'question', type: 3, value: 'life' }],
    memberPermissions: '2048',
  });
  const rec = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === h.id && i.original?.content === 'answer to life'),
  );
  assert.equal(rec.responseType, 5);
  assert.ok(rec.acknowledgedAt !== undefined && rec.acknowledgedAt - rec.createdAt < 3000);
  assert.equal((rec.original?.flags ?? 0) & 128, 0, 'the loading flag is cleared by the edit');
  assert.equal(rec.original?.type, 20);
  assert.equal(seen[0]?.memberPermissions?.bitfield, 2048n);
  assert.equal(seen[0]?.channelId, channelId);
  assert.ok(seen[0]?.appPermissions.has('SendMessages'));
});

test('an interaction answered after the 3 s window gets 10062 Unknown interaction', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer, { interactionAckWindowMs: 150 });
  const { guildId, channelId } = firstChannel(emu);
  await rest(emu).put(Routes.applicationCommands(emu.applicationId), {
    body: [{ name: 'slow', description: 'Too slow' }],
  });
  const c = await client(emu, defer);
  const errors: unknown[] = [];
  c.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    await new Promise((r) => setTimeout(r, 300));
    await i.reply('late').catch((e: unknown) => errors.push(e));
  });
  await emu.slashCommand({ guildId, channelId, userId: emu.users[0]?.id ?? '', name: 'slow' });
  const err = await emu.waitFor(() => errors[0]);
  assert.ok(err instanceof DiscordAPIError);
  assert.equal(err.code, 10062);
  assert.equal(err.status, 404);
  assert.equal(emu.interactions()[0]?.acknowledgedAt, undefined);
});

test('slash command in a thread with an attachment option, then a followUp', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const { guildId, channelId } = firstChannel(emu);
  await rest(emu).put(Routes.applicationCommands(emu.applicationId), {
    body: [
      {
        name: 'summarize',
        description: 'Summarize a file',
        options: [{ name: 'file', description: 'f', type: 11 }],
      },
    ],
  });
  const c = await client(emu, defer);
  const userId = emu.users[0]?.id ?? '';
  const root = await emu.userMessage({ guildId, channelId, userId, content: 'look at this' });
  const thread = await emu.userThread({ channelId, userId, name: 'file talk', messageId: root.id });
  const got: { thread: boolean; parent: string | null; body: string }[] = [];
  c.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    await i.deferReply({ flags: 64 });
    const file = i.options.getAttachment('file', true);
    const body = await (await fetch(file.url)).text();
    got.push({
      thread: i.channel?.isThread() ?? false,
      parent: (i.channel as ThreadChannel).parentId,
      body,
    });
    await i.followUp({ content: 'first followup edits the deferred reply' });
    await i.followUp({ content: 'second one is new', flags: 64 });
  });
  const h = await emu.slashCommand({
    channelId: thread.id,
    userId,
    name: 'summarize',
    options: [{ name: 'file', type: 11, value: 'notes.txt' }],
    attachments: [{ filename: 'notes.txt', bytes: new TextEncoder().encode('file body') }],
  });
  const rec = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === h.id && i.followups.length === 1),
  );
  assert.deepEqual(got, [{ thread: true, parent: channelId, body: 'file body' }]);
  assert.equal(rec.original?.content, 'first followup edits the deferred reply');
  assert.equal(rec.ephemeral, true);
  assert.equal(rec.followups[0]?.content, 'second one is new');
  assert.equal((rec.followups[0]?.flags ?? 0) & 64, 64);
});

test('threads: startThread from a message dispatches THREAD_CREATE; bad names get 400', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { guildId, channelId } = firstChannel(emu);
  const userId = emu.users[0]?.id ?? '';
  const created: ThreadChannel[] = [];
  c.on('threadCreate', (th) => created.push(th));
  const received: Message[] = [];
  c.on('messageCreate', (m) => received.push(m));
  await emu.userMessage({ guildId, channelId, userId, content: 'start here', mentionsBot: true });
  const m = await emu.waitFor(() => received[0]);
  const thread = await m.startThread({ name: 'Answer' });
  await emu.waitFor(() => created.find((x) => x.id === thread.id));
  assert.equal(thread.id, m.id, 'a thread started from a message shares its id');
  assert.equal(thread.parentId, channelId);
  assert.deepEqual(
    emu.threads().map((x) => [x.id, x.parentId, x.starterMessageId, x.ownerId]),
    [[m.id, channelId, m.id, emu.botUserId]],
  );
  await thread.send('in the thread');
  assert.deepEqual(
    emu.messages(thread.id).map((x) => x.content),
    ['in the thread'],
  );

  const again = await rejection(m.startThread({ name: 'Again' }));
  assert.equal(again.code, 160004);
  const long = await rejection(
    (m.channel as TextChannel).threads.create({ name: 'x'.repeat(101) }),
  );
  assert.equal(long.status, 400);
  assert.equal(long.code, 50035);
});

test('message limits and allowed_mentions', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { channelId } = firstChannel(emu);
  const channel = c.channels.cache.get(channelId) as TextChannel;
  const tooLong = await rejection(channel.send('x'.repeat(2001)));
  assert.equal(tooLong.status, 400);
  assert.equal(tooLong.code, 50035);
  assert.match(tooLong.message, /content\[BASE_TYPE_MAX_LENGTH\]/);
  await channel.send('x'.repeat(2000));
  assert.equal((await rejection(channel.send({ content: '' }))).code, 50006);

  const alice = emu.users[0]?.id ?? '';
  await channel.send({ content: `<@${alice}> quiet`, allowedMentions: { parse: [] } });
  await channel.send(`<@${alice}> loud`);
  const [, quiet, loud] = emu.messages(channelId);
  assert.deepEqual(quiet?.allowed_mentions, { parse: [] });
  assert.deepEqual(quiet?.mentions, []);
  assert.equal(loud?.allowed_mentions, undefined);
  assert.deepEqual(
    loud?.mentions.map((u) => u.id),
    [alice],
  );
  const post = emu.calls.filter(
    (x) => x.method === 'POST' && x.route === `/channels/${channelId}/messages`,
  );
  assert.deepEqual(
    post.map((x) => x.status),
    [400, 200, 400, 200, 200],
  );
});

test('a dropped connection RESUMEs and replays what was dispatched meanwhile', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { guildId, channelId } = firstChannel(emu);
  const received: string[] = [];
  c.on('messageCreate', (m) => received.push(m.content));
  const resumed = once(c, 'shardResume');
  emu.dropGatewayConnection();
  await emu.userMessage({
    guildId,
    channelId,
    userId: emu.users[0]?.id ?? '',
    content: 'while away',
  });
  const [, replayed] = (await resumed) as [number, number];
  await emu.waitFor(() => received.includes('while away'));
  assert.deepEqual(emu.gatewaySessions(), {
    identified: 1,
    resumed: 1,
    invalidated: 0,
    connected: 1,
  });
  assert.ok(replayed >= 1, 'discord.js counts the replayed event');
  assert.ok(
    emu.calls.filter((x) => x.route === '/gateway/bot').length === 1,
    'resume uses resume_gateway_url',
  );
});

test('a non-resumable drop gets INVALID_SESSION and a fresh IDENTIFY', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  // @discordjs/ws spaces IDENTIFYs 5 s apart by default; a no-op throttler keeps the test short.
  const c = await client(emu, defer, {
    ws: { buildIdentifyThrottler: () => ({ waitForIdentify: async () => {} }) },
  });
  emu.dropGatewayConnection({ resumable: false });
  await emu.waitFor(
    () => emu.gatewaySessions().identified === 2 && emu.gatewaySessions().connected === 1,
  );
  assert.equal(emu.gatewaySessions().invalidated, 1);
  const { guildId, channelId } = firstChannel(emu);
  const got = once(c, 'messageCreate');
  await emu.userMessage({ guildId, channelId, userId: emu.users[0]?.id ?? '', content: 'after' });
  assert.equal(((await got) as [Message])[0].content, 'after');
});

test('CDN: signed attachment URLs work, then 404 once expired or tampered', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { guildId, channelId } = firstChannel(emu);
  const received: Message[] = [];
  c.on('messageCreate', (m) => received.push(m));
  emu.setCdnTtlMs(60_000);
  await emu.userMessage({
    guildId,
    channelId,
    userId: emu.users[0]?.id ?? '',
    content: 'see file',
    attachments: [
      {
        filename: 'my notes.txt',
        bytes: new TextEncoder().encode('abc'),
        contentType: 'text/plain',
      },
    ],
  });
  const m = await emu.waitFor(() => received[0]);
  const a = m.attachments.first();
  assert.ok(a);
  assert.equal(a.name, 'my_notes.txt');
  assert.match(
    a.url,
    /\/attachments\/\d+\/\d+\/my_notes\.txt\?ex=[0-9a-f]+&is=[0-9a-f]+&hm=[0-9a-f]{64}&$/,
  );
  assert.equal(await (await fetch(a.url)).text(), 'abc');
  assert.equal((await fetch(a.url.replace(/hm=[0-9a-f]/, 'hm=x'))).status, 404);
  emu.advanceCdnClock(61_000);
  const expired = await fetch(a.url);
  assert.equal(expired.status, 404);
  assert.equal(await expired.text(), 'This content is no longer available.');
  // Refetching the message re-signs its attachment URLs, as Discord does.
  const fresh = await (m.channel as TextChannel).messages.fetch({ message: m.id, force: true });
  assert.equal((await fetch(fresh.attachments.first()?.url ?? '')).status, 200);

  // discord.js uploads files as multipart (files[n] + payload_json).
  const report = await (m.channel as TextChannel).send({
    content: 'report',
    files: [{ attachment: Buffer.from('data'), name: 'r.txt', description: 'the report' }],
  });
  const call = emu.calls.at(-1);
  assert.deepEqual(
    call?.files?.map((f) => [f.field, f.filename, f.size]),
    [['files[0]', 'r.txt', 4]],
  );
  assert.equal((call?.body as { content?: string } | undefined)?.content, 'report');
  const stored = emu.messages(channelId).at(-1)?.attachments[0];
  assert.equal(stored?.description, 'the report');
  assert.equal(await (await fetch(report.attachments.first()?.url ?? '')).text(), 'data');
  assert.equal(await (await fetch(emu.attachmentUrl(stored?.id ?? ''))).text(), 'data');
});

test('a 429 on message create is waited out and retried by @discordjs/rest', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { channelId } = firstChannel(emu);
  emu.failNext(/^POST \/channels\/\d+\/messages$/, { status: 429, retryAfterSec: 0.4 });
  emu.failNext(/^POST \/channels\/\d+\/messages$/, { status: 500 });
  const posts = () => emu.calls.filter((x) => x.method === 'POST' && x.route.endsWith('/messages'));
  // @discordjs/rest waits with a timer: on a mocked clock (the emulator stamps calls with it) the
  // gap is exactly what the client waited, whatever the machine's speed.
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  let sent: Message | undefined;
  try {
    const sending = (c.channels.cache.get(channelId) as TextChannel).send('eventually');
    for (let t = 0; posts().length < 3; t += 10) {
      assert.ok(t < 60_000, 'still no retry after a minute of mocked time');
      mock.timers.tick(10);
      await turn();
    }
    sent = await sending;
  } finally {
    mock.timers.reset();
  }
  const [limited, retried] = posts();
  const gap = (retried?.at ?? 0) - (limited?.at ?? 0);
  assert.ok(gap >= 400, `retried ${gap} ms (mocked clock) after the 429, before retry_after`);
  assert.deepEqual(
    posts().map((x) => x.status),
    [429, 500, 200],
  );
  assert.equal(emu.messages(channelId).at(-1)?.id, sent.id);
});

test('DMs: a message without a guild arrives on a DM channel the bot can answer in', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const userId = emu.users[1]?.id ?? '';
  const dm = emu.dmChannelId(userId);
  const got = once(c, 'messageCreate');
  await emu.userMessage({ channelId: dm, userId, content: 'private question' });
  const [m] = (await got) as [Message];
  assert.equal(m.channel.isDMBased(), true);
  assert.equal(m.guildId, null);
  await m.reply('private answer');
  assert.deepEqual(
    emu.messages(dm).map((x) => [x.content, x.type]),
    [
      ['private question', 0],
      ['private answer', 19],
    ],
  );
});

test('gateway: bad token closes with 4004; zlib-stream compression is honoured', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const bad = new WebSocket(`${emu.gatewayUrl}/?v=10&encoding=json`);
  bad.on('message', () =>
    bad.send(JSON.stringify({ op: 2, d: { token: 'nope', intents: 1, properties: {} } })),
  );
  const [code] = (await once(bad, 'close')) as [number];
  assert.equal(code, 4004);

  const z = new WebSocket(`${emu.gatewayUrl}/?v=10&encoding=json&compress=zlib-stream`);
  defer(async () => z.close());
  const [frame] = (await once(z, 'message')) as [Buffer];
  assert.deepEqual(
    [...frame.subarray(-4)],
    [0, 0, 255, 255],
    'frames end with the sync-flush marker',
  );
  const hello = JSON.parse(inflateSync(frame, { finishFlush: 2 }).toString()) as { op: number };
  assert.equal(hello.op, 10);

  const login = new Client({ intents: INTENTS, rest: { api: emu.apiUrl } });
  defer(() => login.destroy());
  await assert.rejects(login.login('wrong-token'), /token/i);
});

test('edits, reactions, history and others’ messages', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const c = await client(emu, defer);
  const { guildId, channelId } = firstChannel(emu);
  const channel = c.channels.cache.get(channelId) as TextChannel;
  const theirs = await emu.userMessage({
    guildId,
    channelId,
    userId: emu.users[0]?.id ?? '',
    content: 'q',
  });
  const updates: string[] = [];
  c.on('messageUpdate', (_old, m) => updates.push(m.content ?? ''));
  const mine = await channel.send('a');
  await mine.edit('ab');
  await emu.waitFor(() => updates.includes('ab'));
  assert.ok(emu.messages(channelId).at(-1)?.edited_timestamp);
  await mine.react('👍');
  assert.deepEqual(
    emu
      .messages(channelId)
      .at(-1)
      ?.reactions?.map((r) => [r.emoji.name, r.count, r.me]),
    [['👍', 1, true]],
  );
  const r = rest(emu);
  const badEmoji = await rejection(
    r.put(Routes.channelMessageOwnReaction(channelId, mine.id, 'thumbsup')),
  );
  assert.equal(badEmoji.code, 10014);
  const notMine = await rejection(
    r.patch(Routes.channelMessage(channelId, theirs.id), { body: { content: 'x' } }),
  );
  assert.equal(notMine.code, 50005);
  const history = await channel.messages.fetch({ limit: 2 });
  assert.deepEqual(
    [...history.values()].map((m) => m.content),
    ['ab', 'q'],
  );
  const unknown = await rejection(r.get(Routes.channelMessage(channelId, emu.snowflake())));
  assert.equal(unknown.code, 10008);
});

test('components: update() edits the clicked message; ephemeral replies stay out of history', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const { guildId, channelId } = firstChannel(emu);
  await rest(emu).put(Routes.applicationCommands(emu.applicationId), {
    body: [{ name: 'secret', description: 'Only you' }],
  });
  const c = await client(emu, defer);
  c.on('interactionCreate', async (i) => {
    if (i.isButton()) await i.update({ content: 'stopped', components: [] });
    if (i.isChatInputCommand()) await i.reply({ content: 'just for you', flags: 64 });
  });
  const sent = await (c.channels.cache.get(channelId) as TextChannel).send({
    content: 'generating…',
    components: [
      { type: 1, components: [{ type: 2, style: 4, label: 'Stop', custom_id: 'stop' }] },
    ],
  });
  const userId = emu.users[0]?.id ?? '';
  const click = await emu.componentInteraction({
    channelId,
    messageId: sent.id,
    userId,
    customId: 'stop',
  });
  await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === click.id && i.responseType === 7),
  );
  const edited = emu.messages(channelId).find((m) => m.id === sent.id);
  assert.equal(edited?.content, 'stopped');
  assert.deepEqual(edited?.components, []);

  const cmd = await emu.slashCommand({ guildId, channelId, userId, name: 'secret' });
  const rec = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === cmd.id && i.original),
  );
  assert.equal(rec.ephemeral, true);
  assert.equal(rec.responseType, 4);
  const history = (await rest(emu).get(Routes.channelMessages(channelId))) as { id: string }[];
  assert.ok(
    !history.some((m) => m.id === rec.original?.id),
    'ephemeral replies are not in history',
  );
});

test('REST: bucket headers make @discordjs/rest wait instead of hitting 429s; bad input is refused', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer, { rateLimit: { limit: 2, windowMs: 300 } });
  const { channelId } = firstChannel(emu);
  const r = rest(emu);
  await Promise.all(
    ['1', '2', '3'].map((content) =>
      r.post(Routes.channelMessages(channelId), { body: { content } }),
    ),
  );
  const posts = emu.calls.filter((x) => x.method === 'POST');
  assert.deepEqual(
    posts.map((x) => x.status),
    [200, 200, 200],
    'no 429: the client waited for the reset',
  );
  assert.ok((posts[2]?.at ?? 0) - (posts[0]?.at ?? 0) >= 250);

  const badName = await rejection(
    r.put(Routes.applicationCommands(emu.applicationId), {
      body: [{ name: 'Bad Name', description: 'x' }],
    }),
  );
  assert.equal(badName.code, 50035);
  const wrongToken = new REST({ api: emu.apiUrl, retries: 0 }).setToken('not-the-token');
  const unauthorized = await rejection(wrongToken.get(Routes.user()));
  assert.equal(unauthorized.status, 401);
});

test('a MESSAGE_CONTENT intent not enabled for the app closes the gateway with 4014', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer, { privilegedIntents: { messageContent: false } });
  const c = new Client({
    intents: INTENTS,
    partials: [Partials.Channel],
    rest: { api: emu.apiUrl },
  });
  defer(() => c.destroy());
  await assert.rejects(c.login(emu.botToken), /disallowed intents/i);
});

test('user installs: where the bot is not, 403 Missing Access on the channel, answers through the interaction only', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const r = rest(emu);
  await r.put(Routes.applicationCommands(emu.applicationId), {
    body: [
      {
        name: 'ask',
        description: 'Ask',
        options: [{ name: 'question', description: 'q', type: 3, required: true }],
        integration_types: [0, 1],
        contexts: [0, 1, 2],
      },
      { name: 'settings', description: 'Settings', integration_types: [0] },
      { name: 'Ask about', type: 3, integration_types: [0, 1], contexts: [0, 2] },
    ],
  });
  const bad = await rejection(
    r.put(Routes.applicationCommands(emu.applicationId), {
      body: [{ name: 'x', description: 'x', contexts: [3] }],
    }),
  );
  assert.equal(bad.status, 400);

  const c = await client(emu, defer);
  const seen: ChatInputCommandInteraction[] = [];
  c.on('interactionCreate', (i) => {
    if (i.isChatInputCommand()) seen.push(i);
  });
  const messages: Message[] = [];
  c.on('messageCreate', (m) => messages.push(m));
  const [alice, bob] = emu.users.map((u) => u.id) as [string, string];
  const g = emu.addGuild({
    name: 'Elsewhere',
    channels: [{ id: emu.snowflake(), name: 'general' }],
  });
  const channelId = g.channels[0]?.id ?? '';
  assert.equal(g.botMember, false);
  assert.equal(c.guilds.cache.has(g.id), false, 'no GUILD_CREATE for a server without the bot');
  const posted = await emu.userMessage({ guildId: g.id, channelId, userId: alice, content: 'hi' });

  for (const call of [
    r.post(Routes.channelMessages(channelId), { body: { content: 'x' } }),
    r.get(Routes.channelMessages(channelId)),
    r.post(Routes.threads(channelId, posted.id), { body: { name: 't' } }),
    r.post(Routes.channelTyping(channelId)),
    r.get(Routes.guild(g.id)),
  ]) {
    const err = await rejection(call);
    assert.equal(err.status, 403);
    assert.equal(err.code, 50001);
  }
  await assert.rejects(
    emu.slashCommand({ channelId, userId: bob, name: 'settings' }),
    /not offered to a user install/,
  );

  const gdm = emu.groupDm([alice, bob]);
  for (const [where, context] of [
    [channelId, 0],
    [gdm, 2],
  ] as const) {
    const handle = await emu.slashCommand({
      channelId: where,
      userId: bob,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'q' }],
    });
    const i = await emu.waitFor(() => seen.find((x) => x.id === handle.id));
    assert.equal(i.context, context);
    assert.equal(i.authorizingIntegrationOwners.userId, bob);
    assert.equal(i.authorizingIntegrationOwners.guildId, null);
    assert.equal(i.guild, null, 'no server the bot knows');
    await i.deferReply({ flags: 64 });
    await i.editReply({ content: 'answer' });
    for (let n = 0; n < 5; n++) await i.followUp({ content: `more ${n}`, flags: 64 });
    const sixth = await rejection(i.followUp({ content: 'too many', flags: 64 }));
    assert.equal(sixth.status, 400);
    const rec = emu.interactions().find((x) => x.id === handle.id);
    assert.equal(rec?.original?.content, 'answer');
    assert.equal(rec?.followups.length, 5);
  }
  const resolved = await emu.messageCommand({
    channelId,
    messageId: posted.id,
    userId: bob,
    name: 'Ask about',
  });
  const data = emu.interactions().find((x) => x.id === resolved.id)?.data as {
    resolved?: { messages?: Record<string, { content?: string }> };
  };
  assert.equal(data.resolved?.messages?.[posted.id]?.content, 'hi');
  assert.equal(
    messages.filter((m) => m.channelId === channelId || m.channelId === gdm).length,
    0,
    'the bot got no MESSAGE_CREATE from where it is not',
  );
});
