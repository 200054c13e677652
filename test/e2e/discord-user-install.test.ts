// Discord user installs: the app used from a person's own install where the bot is not — a server
// that did not add it, a group DM. It answers only through the interaction (privately), never
// posts, reads or starts threads there, and keeps what it learns in that person's own project.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { REST, Routes } from 'discord.js';
import { ASK_ABOUT_COMMAND, COMMANDS } from '../../adapters/discord/commands.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Discord = NonNullable<Harness['discord']>;
type Req = { messages: { role: string; content: unknown }[] };
type Registered = { name: string; integration_types?: number[]; contexts?: number[] | null };

const EPHEMERAL = 64;

describe('Discord user installs', () => {
  let h: Harness;
  let d: Discord;
  let alice: string;
  let bob: string;
  let mina: string;
  /** A server whose people installed threadmind on their accounts; the server itself did not. */
  let elsewhere: { guildId: string; channelId: string };

  before(async () => {
    // Replies long enough to need more messages than a user install may send.
    h = await startHarness({
      discord: true,
      overrides: { llm: { text: { maxReplyTokens: 8192 } } },
    });
    d = h.discord as Discord;
    [alice, bob, mina] = d.users.map((u) => u.id) as [string, string, string];
    const g = d.addGuild({ name: 'Elsewhere', channels: [{ id: d.snowflake(), name: 'general' }] });
    elsewhere = { guildId: g.id, channelId: g.channels[0]?.id ?? '' };
  });
  after(() => h.close());

  /** Every REST call the bot made about a channel (reads, posts, typing, threads). */
  const channelCalls = (channelId: string) =>
    d.calls.filter((c) => c.route.startsWith(`/channels/${channelId}`));

  /** The interaction's answer once the turn is over: its original response and follow-ups. */
  const answerOf = async (interactionId: string) => {
    await h.handled(interactionId, 1, 15_000);
    return d.waitFor(() => {
      const i = d.interactions().find((x) => x.id === interactionId);
      return i?.original?.content ? i : undefined;
    });
  };

  const searchFiles = (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `FROM FILES: ${String(last.content)}` };
    return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'zirconia launch' } }] };
  };

  test('commands declare where they are offered; server-only ones are not offered to user installs', async () => {
    const global = d.registeredCommands('global') as Registered[];
    const of = (name: string) => global.find((c) => c.name === name);
    for (const name of ['ask', ASK_ABOUT_COMMAND, 'summarize', 'files', 'forget']) {
      assert.deepEqual(of(name)?.integration_types, [0, 1], name);
      assert.deepEqual(of(name)?.contexts, [0, 1, 2], name);
    }
    assert.deepEqual(of('settings')?.integration_types, [0]);
    assert.deepEqual(of('feedback-export')?.integration_types, [0]);
    assert.deepEqual(of('feedback-export')?.contexts, [0]);
    await assert.rejects(
      d.slashCommand({
        channelId: elsewhere.channelId,
        userId: bob,
        name: 'settings',
        options: [{ name: 'show', type: 1 }],
      }),
      /not offered to a user install/,
    );
  });

  test('"Ask threadmind about this" in a server without the bot answers privately about that message and its file', async () => {
    const { guildId, channelId } = elsewhere;
    const msg = await d.userMessage({
      guildId,
      channelId,
      userId: alice,
      content: 'Launch notes for the zirconia release are attached',
      attachments: [
        {
          filename: 'zirconia.txt',
          bytes: Buffer.from('The zirconia launch is on 14 March at 09:00 UTC.\n'),
        },
      ],
    });
    h.llm.setResponder(searchFiles);
    const ask = await d.messageCommand({
      channelId,
      messageId: msg.id,
      userId: bob,
      name: ASK_ABOUT_COMMAND,
    });
    const sent = d.interactions().find((i) => i.id === ask.id);
    assert.deepEqual(sent?.owners, { 1: bob }, 'authorized by bob’s own install only');
    assert.equal(sent?.context, 0);

    const answered = await answerOf(ask.id);
    assert.equal(answered.ephemeral, true, 'only bob sees it');
    assert.equal((answered.original?.flags ?? 0) & EPHEMERAL, EPHEMERAL);
    const text = [answered.original, ...answered.followups].map((m) => m?.content).join('\n');
    assert.match(text, /FROM FILES: .*zirconia\.txt/s);
    assert.match(text, /14 March/);

    const first = h.llm.requests.find((q) =>
      JSON.stringify(q.body.messages).includes('Look at the message from'),
    );
    const human = JSON.stringify(first?.body.messages.at(-1));
    assert.match(
      human,
      new RegExp(`<data source=\\\\"thread message\\\\" from=\\\\"Alice \\(${alice}\\)`),
    );
    assert.match(human, /Launch notes for the zirconia release/);
    assert.match(human, /\[attached: zirconia\.txt\]/);

    // 👍 on the private answer counts in bob's own project.
    const last = [answered.original, ...answered.followups].findLast(
      (m) => (m?.components?.length ?? 0) > 0,
    );
    const row = last?.components?.[0] as { components?: { custom_id?: string }[] } | undefined;
    const up = row?.components?.find((c) => c.custom_id?.startsWith('t1.feedback.up.'))?.custom_id;
    assert.ok(last && up, 'the answer carries the feedback buttons');
    const click = await d.componentInteraction({
      channelId,
      messageId: last.id,
      userId: bob,
      customId: up,
    });
    const thanked = await d.waitFor(() => {
      const x = d.interactions().find((i) => i.id === click.id);
      return x?.original?.content ? x : undefined;
    });
    assert.match(thanked.original?.content ?? '', /Thanks for the 👍/);

    assert.deepEqual(channelCalls(channelId), [], 'no read, post, typing or thread in the channel');
    assert.equal(d.threads().filter((t) => t.parentId === channelId).length, 0);
    assert.equal(d.calls.filter((c) => c.status === 403).length, 0, 'nothing it may not do');
  });

  test('the file stays in the asker’s own conversation: not another person’s, not the server’s', async () => {
    const { guildId, channelId } = elsewhere;
    h.llm.setResponder(searchFiles);
    // Mina, with her own install, in the same channel.
    const theirs = await d.slashCommand({
      channelId,
      userId: mina,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'when is the zirconia launch?' }],
    });
    const minaAnswer = (await answerOf(theirs.id)).original?.content ?? '';
    assert.match(minaAnswer, /FROM FILES/);
    assert.doesNotMatch(minaAnswer, /zirconia\.txt/);

    // Bob again, in the same conversation: the file is there.
    const again = await d.slashCommand({
      channelId,
      userId: bob,
      name: 'files',
    });
    // A flow (no turn): over once it has answered.
    const listed = await d.waitFor(() => d.interactions().find((x) => x.id === again.id)?.original);
    assert.match(listed.content ?? '', /zirconia\.txt/);

    // The server installs the bot later: its own conversations do not see bob's file either.
    d.installInGuild(guildId);
    await d.waitFor(() => h.app.discord?.client.guilds.cache.has(guildId));
    const inServer = await d.slashCommand({
      guildId,
      channelId,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'zirconia launch date?' }],
    });
    assert.deepEqual(
      d.interactions().find((i) => i.id === inServer.id)?.owners,
      { 0: guildId },
      'a server install now',
    );
    await h.handled(inServer.id, 1, 15_000);
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.name === 'zirconia launch date?'),
    );
    const said = await d.waitFor(() => {
      const m = d
        .messages(thread.id)
        .find((x) => x.author.id === d.botUserId && x.content.includes('FROM FILES'));
      return m?.content;
    });
    assert.doesNotMatch(said, /zirconia\.txt/);
  });

  test('/ask in a group DM answers through the interaction, a long answer in follow-ups', async () => {
    const gdm = d.groupDm([alice, bob]);
    const long = Array.from(
      { length: 60 },
      (_, i) => `Line ${i}: ${'lorem ipsum '.repeat(5)}`,
    ).join('\n');
    h.llm.setResponder(() => ({ content: long }));
    const ask = await d.slashCommand({
      channelId: gdm,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'write me sixty lines' }],
    });
    assert.equal(d.interactions().find((i) => i.id === ask.id)?.context, 2);
    await h.handled(ask.id, 1, 15_000);
    const answered = await d.waitFor(() => {
      const i = d.interactions().find((x) => x.id === ask.id);
      const parts = [i?.original, ...(i?.followups ?? [])].map((m) => m?.content ?? '');
      return parts.join('').replace(/\s+/g, '').includes(long.replace(/\s+/g, '')) ? i : undefined;
    });
    assert.ok(answered.followups.length >= 1, 'continued in a follow-up');
    for (const m of [answered.original, ...answered.followups]) {
      assert.equal((m?.flags ?? 0) & EPHEMERAL, EPHEMERAL, 'each part private to alice');
    }
    assert.deepEqual(channelCalls(gdm), []);
  });

  test('an answer longer than six messages ends in the sixth, saying the rest did not fit', async () => {
    const gdm = d.groupDm([alice, mina]);
    // About 9 messages of 2,000 characters: more than the response and five follow-ups.
    const long = Array.from({ length: 300 }, (_, i) => `Line ${i}: ${'words '.repeat(9)}`).join(
      '\n',
    );
    h.llm.setResponder(() => ({ content: long }));
    const ask = await d.slashCommand({
      channelId: gdm,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'write me three hundred lines' }],
    });
    await h.handled(ask.id, 1, 15_000);
    const answered = await d.waitFor(() => {
      const i = d.interactions().find((x) => x.id === ask.id);
      return i?.followups.at(-1)?.content?.includes('did not fit') ? i : undefined;
    });
    assert.equal(answered.followups.length, 5, 'the five follow-ups Discord allows, no more');
    const last = answered.followups.at(-1)?.content ?? '';
    assert.match(last, /at most 6 messages/);
    // What was shown is the answer's start, whole lines in order.
    const shown = [answered.original, ...answered.followups]
      .map((m) => m?.content ?? '')
      .join('\n');
    assert.ok(shown.includes('Line 0: '));
    assert.ok(!shown.includes('Line 299: '));
  });

  test('a server-only command still registered for user installs is refused in words', async () => {
    const rest = new REST({ api: d.apiUrl }).setToken(d.botToken);
    // As an older registration might have left it.
    const stale = COMMANDS.map((c) =>
      c.name === 'settings' ? { ...c, integration_types: [0, 1], contexts: [0, 1, 2] } : c,
    );
    await rest.put(Routes.applicationCommands(d.applicationId), { body: stale });
    try {
      const gdm = d.groupDm([bob, mina]);
      const i = await d.slashCommand({
        channelId: gdm,
        userId: bob,
        name: 'settings',
        options: [{ name: 'show', type: 1 }],
      });
      const answered = await d.waitFor(() => {
        const x = d.interactions().find((y) => y.id === i.id);
        return x?.original?.content ? x : undefined;
      });
      assert.equal(answered.ephemeral, true);
      assert.match(
        answered.original?.content ?? '',
        /\/settings works only where threadmind is added to the server itself/,
      );
      assert.deepEqual(channelCalls(gdm), []);
    } finally {
      await rest.put(Routes.applicationCommands(d.applicationId), { body: COMMANDS });
    }
  });
});
