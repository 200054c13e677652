// The Discord emulator's history, reply chains, forwards, edits/deletions, /settings-style
// subcommands with member permissions, ephemeral answers and modals, checked against the
// unmodified discord.js Client.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import {
  ActionRowBuilder,
  Client,
  GatewayIntentBits,
  type Interaction,
  type Message,
  MessageFlags,
  MessageReferenceType,
  ModalBuilder,
  type ModalSubmitInteraction,
  type PartialMessage,
  Partials,
  PermissionFlagsBits,
  REST,
  Routes,
  type TextChannel,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';

type Cleanup = (fn: () => Promise<unknown>) => void;

function cleanups(t: { after: (fn: () => Promise<void>) => void }): Cleanup {
  const stack: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const fn of stack.reverse()) await fn();
  });
  return (fn) => stack.push(fn);
}

async function setup(defer: Cleanup): Promise<{
  emu: DiscordEmulator;
  c: Client<true>;
  guildId: string;
  channelId: string;
  alice: string;
  bob: string;
}> {
  const emu = await startDiscordEmulator();
  defer(() => emu.close());
  const c = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel, Partials.Message],
    rest: { api: emu.apiUrl, timeout: 5000, retries: 0 },
  });
  defer(() => c.destroy());
  const ready = once(c, 'clientReady');
  await c.login(emu.botToken);
  await ready;
  const g = emu.guilds[0];
  assert.ok(g?.channels[0]);
  return {
    emu,
    c: c as Client<true>,
    guildId: g.id,
    channelId: g.channels[0].id,
    alice: emu.users[0]?.id ?? '',
    bob: emu.users[1]?.id ?? '',
  };
}

test('GET messages: newest first, before/after/around/limit like Discord', async (t) => {
  const defer = cleanups(t);
  const { emu, c, guildId, channelId, alice } = await setup(defer);
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    ids.push((await emu.userMessage({ guildId, channelId, userId: alice, content: `m${i}` })).id);
  }
  const ch = (await c.channels.fetch(channelId)) as TextChannel;
  const contents = (ms: Map<string, Message>) => [...ms.values()].map((m) => m.content);
  assert.deepEqual(contents(await ch.messages.fetch({ limit: 3, cache: false })), [
    'm11',
    'm10',
    'm9',
  ]);
  assert.deepEqual(
    contents(await ch.messages.fetch({ limit: 3, before: ids[5] ?? '', cache: false })),
    ['m4', 'm3', 'm2'],
  );
  // `after` takes the ones right after, still newest first.
  assert.deepEqual(
    contents(await ch.messages.fetch({ limit: 3, after: ids[5] ?? '', cache: false })),
    ['m8', 'm7', 'm6'],
  );
  const around = contents(
    await ch.messages.fetch({ limit: 3, around: ids[5] ?? '', cache: false }),
  );
  assert.deepEqual(around, ['m6', 'm5', 'm4']);
});

test('replies carry message_reference and referenced_message; forwards carry a snapshot', async (t) => {
  const defer = cleanups(t);
  const { emu, c, guildId, channelId, alice, bob } = await setup(defer);
  const other = emu.guilds[0]?.channels[1]?.id ?? '';
  const seen: Message[] = [];
  c.on('messageCreate', (m) => {
    seen.push(m);
  });
  const root = await emu.userMessage({
    guildId,
    channelId,
    userId: alice,
    content: 'retry limit?',
  });
  const reply = await emu.userMessage({
    guildId,
    channelId,
    userId: bob,
    content: 'it is 3',
    replyTo: root.id,
  });
  assert.equal(reply.type, 19);
  assert.deepEqual(reply.message_reference, {
    type: 0,
    message_id: root.id,
    channel_id: channelId,
    guild_id: guildId,
  });
  assert.equal(reply.referenced_message?.content, 'retry limit?');
  const got = await emu.waitFor(() => seen.find((m) => m.id === reply.id));
  assert.equal(got.reference?.messageId, root.id);
  const fetched = await got.fetchReference();
  assert.equal(fetched.content, 'retry limit?');

  const fwd = await emu.userMessage({
    guildId,
    channelId: other,
    userId: alice,
    content: '',
    forwardOf: { channelId, messageId: reply.id },
  });
  assert.equal(fwd.content, '');
  assert.equal(fwd.message_reference?.type, 1);
  assert.equal(fwd.message_reference?.message_id, reply.id);
  assert.equal((fwd.flags ?? 0) & MessageFlags.HasSnapshot, MessageFlags.HasSnapshot);
  assert.equal(fwd.message_snapshots?.[0]?.message.content, 'it is 3');
  const gotFwd = await emu.waitFor(() => seen.find((m) => m.id === fwd.id));
  assert.equal(gotFwd.reference?.type, MessageReferenceType.Forward);
  assert.equal(gotFwd.messageSnapshots.first()?.content, 'it is 3');
});

test('a person editing and deleting: MESSAGE_UPDATE with the full message, MESSAGE_DELETE', async (t) => {
  const defer = cleanups(t);
  const { emu, c, guildId, channelId, alice } = await setup(defer);
  const raw: { t: string; d: Record<string, unknown> }[] = [];
  c.ws.on('MESSAGE_UPDATE' as never, (d: Record<string, unknown>) =>
    raw.push({ t: 'MESSAGE_UPDATE', d }),
  );
  c.ws.on('MESSAGE_DELETE' as never, (d: Record<string, unknown>) =>
    raw.push({ t: 'MESSAGE_DELETE', d }),
  );
  const updates: [string | null, string][] = [];
  const deletes: string[] = [];
  c.on('messageUpdate', (before: Message | PartialMessage, after: Message) => {
    updates.push([before.content, after.content]);
  });
  c.on('messageDelete', (m) => {
    deletes.push(m.id);
  });
  const m = await emu.userMessage({ guildId, channelId, userId: alice, content: 'limit is 3' });
  await emu.waitFor(() => c.channels.cache.get(channelId) !== undefined);
  const edited = await emu.editUserMessage(channelId, m.id, 'limit is 5');
  assert.equal(edited.content, 'limit is 5');
  assert.ok(edited.edited_timestamp !== null);
  await emu.waitFor(() => updates.length === 1);
  assert.deepEqual(updates[0], ['limit is 3', 'limit is 5']);
  const update = raw.find((r) => r.t === 'MESSAGE_UPDATE')?.d ?? {};
  assert.equal(update.guild_id, guildId);
  assert.ok(update.member !== undefined);
  assert.equal((update.author as { id: string }).id, alice);
  assert.equal(update.content, 'limit is 5');

  await emu.deleteUserMessage(channelId, m.id);
  await emu.waitFor(() => deletes.length === 1);
  assert.deepEqual(raw.find((r) => r.t === 'MESSAGE_DELETE')?.d, {
    id: m.id,
    channel_id: channelId,
    guild_id: guildId,
  });
  assert.deepEqual(emu.messages(channelId), []);
  const ch = (await c.channels.fetch(channelId)) as TextChannel;
  assert.equal((await ch.messages.fetch({ cache: false })).size, 0);
});

test('/settings subcommands with options, member permissions, an ephemeral refusal, a modal', async (t) => {
  const defer = cleanups(t);
  const { emu, c, guildId, channelId, alice, bob } = await setup(defer);
  await new REST({ api: emu.apiUrl, retries: 0 })
    .setToken(emu.botToken)
    .put(Routes.applicationCommands(emu.applicationId), {
      body: [
        {
          name: 'settings',
          description: 'Channel settings',
          options: [
            { name: 'show', description: 'Show them', type: 1 },
            {
              name: 'set',
              description: 'Change them',
              type: 1,
              options: [
                { name: 'reply_mode', description: 'mode', type: 3 },
                { name: 'context', description: 'messages', type: 4 },
              ],
            },
            { name: 'edit', description: 'In a form', type: 1 },
          ],
        },
      ],
    });
  const submitted: ModalSubmitInteraction[] = [];
  const handle = async (i: Interaction): Promise<void> => {
    if (i.isModalSubmit()) {
      submitted.push(i);
      await i.reply({ content: 'saved', flags: MessageFlags.Ephemeral });
      return;
    }
    if (!i.isChatInputCommand()) return;
    const sub = i.options.getSubcommand();
    if (sub === 'edit') {
      const modal = new ModalBuilder()
        .setCustomId('settings-modal')
        .setTitle('Channel settings')
        .addComponents(
          new ActionRowBuilder<TextInputBuilder>().addComponents(
            new TextInputBuilder()
              .setCustomId('instructions')
              .setLabel('Instructions')
              .setStyle(TextInputStyle.Paragraph),
          ),
        );
      await i.showModal(modal);
      return;
    }
    if (sub === 'set' && !i.memberPermissions?.has(PermissionFlagsBits.ManageChannels)) {
      await i.reply({ content: 'You need Manage Channels.', flags: MessageFlags.Ephemeral });
      return;
    }
    const mode = i.options.getString('reply_mode');
    await i.reply({
      content: `${sub} ${mode ?? ''} ${i.options.getInteger('context') ?? ''}`.trim(),
    });
  };
  c.on('interactionCreate', (i) => {
    void handle(i);
  });
  const manage = (1n << 4n) | (1n << 11n);
  const setOptions = [
    {
      name: 'set',
      type: 1,
      options: [
        { name: 'reply_mode', type: 3, value: 'mention' },
        { name: 'context', type: 4, value: 20 },
      ],
    },
  ];
  const refused = await emu.slashCommand({
    guildId,
    channelId,
    userId: bob,
    name: 'settings',
    options: setOptions,
    memberPermissions: String(1n << 11n),
  });
  const r1 = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === refused.id && i.original !== undefined),
  );
  assert.equal(r1.ephemeral, true);
  assert.equal(r1.original?.content, 'You need Manage Channels.');
  assert.equal((r1.original?.flags ?? 0) & MessageFlags.Ephemeral, MessageFlags.Ephemeral);
  assert.equal(emu.messages(channelId).filter((m) => !((m.flags ?? 0) & 64)).length, 0);

  const allowed = await emu.slashCommand({
    guildId,
    channelId,
    userId: alice,
    name: 'settings',
    options: setOptions,
    memberPermissions: String(manage),
  });
  const r2 = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === allowed.id && i.original !== undefined),
  );
  assert.equal(r2.original?.content, 'set mention 20');
  assert.equal(r2.ephemeral, false);
  assert.deepEqual(r2.data?.options, setOptions);

  const edit = await emu.slashCommand({
    guildId,
    channelId,
    userId: alice,
    name: 'settings',
    options: [{ name: 'edit', type: 1 }],
    memberPermissions: String(manage),
  });
  const opener = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === edit.id && i.modal !== undefined),
  );
  assert.equal(opener.responseType, 9);
  assert.equal(opener.modal?.custom_id, 'settings-modal');
  const sub = await emu.modalSubmit({
    interactionId: edit.id,
    values: { instructions: 'Be brief.' },
  });
  await emu.waitFor(() => submitted.length === 1);
  assert.equal(submitted[0]?.customId, 'settings-modal');
  assert.equal(submitted[0]?.fields.getTextInputValue('instructions'), 'Be brief.');
  assert.equal(submitted[0]?.memberPermissions?.has(PermissionFlagsBits.ManageChannels), true);
  const r3 = await emu.waitFor(() =>
    emu.interactions().find((i) => i.id === sub.id && i.original !== undefined),
  );
  assert.deepEqual([r3.type, r3.ephemeral, r3.original?.content], [5, true, 'saved']);
});

test('channels: a thread shows parent_id/owner_id; overwrites can be set', async (t) => {
  const defer = cleanups(t);
  const { emu, c, guildId, channelId, alice } = await setup(defer);
  const m = await emu.userMessage({ guildId, channelId, userId: alice, content: 'topic' });
  const thread = await emu.userThread({ channelId, userId: alice, name: 'topic', messageId: m.id });
  const rest = new REST({ api: emu.apiUrl, retries: 0 }).setToken(emu.botToken);
  const th = (await rest.get(Routes.channel(thread.id))) as Record<string, unknown>;
  assert.deepEqual([th.parent_id, th.owner_id, th.type], [channelId, alice, 11]);
  const overwrite = { id: guildId, type: 0 as const, allow: '0', deny: String(1n << 11n) };
  emu.setPermissionOverwrites(channelId, [overwrite]);
  const ch = (await rest.get(Routes.channel(channelId))) as Record<string, unknown>;
  assert.deepEqual(ch.permission_overwrites, [overwrite]);
  await emu.waitFor(
    () =>
      (c.channels.cache.get(channelId) as TextChannel | undefined)?.permissionOverwrites.cache
        .size === 1,
  );
});
