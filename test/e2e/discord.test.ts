// Discord end to end through unmodified discord.js and the Discord emulator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Perm } from '../emulators/discord/permissions.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };
const fences = (s: string) => (s.match(/^```/gm) ?? []).length;

describe('Discord', () => {
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let guild: Harness['discord'] extends undefined
    ? never
    : NonNullable<Harness['discord']>['guilds'][number];
  let other: typeof guild;
  let alice: string;
  let bob: string;

  before(async () => {
    h = await startHarness({ discord: true });
    d = h.discord as NonNullable<Harness['discord']>;
    [guild, other] = d.guilds as [typeof guild, typeof guild];
    [alice, bob] = d.users.map((u) => u.id) as [string, string];
  });
  after(async () => {
    await h.close();
  });

  const botMessages = (channelId: string) =>
    d.messages(channelId).filter((m) => m.author.id === d.botUserId);
  const waitForBotText = (channelId: string, needle: string | RegExp, timeoutMs = 8000) =>
    d.waitFor(() => {
      const text = botMessages(channelId)
        .map((m) => m.content)
        .join('\n');
      return (typeof needle === 'string' ? text.includes(needle) : needle.test(text))
        ? botMessages(channelId)
        : undefined;
    }, timeoutMs);

  test('/ask is acknowledged at once, then answered in a thread', async () => {
    const channel = guild.channels[0]?.id ?? '';
    const { id } = await d.slashCommand({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'what is a monad?' }],
    });
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.parentId === channel && t.name === 'what is a monad?'),
    );
    await waitForBotText(thread.id, 'what is a monad?');
    const rec = d.interactions().find((i) => i.id === id);
    assert.ok(
      rec?.acknowledgedAt !== undefined && rec.acknowledgedAt - rec.createdAt < 3000,
      'deferred within 3 s',
    );
    assert.equal(rec?.responseType, 5, 'a deferred response');
    for (const m of botMessages(thread.id))
      assert.deepEqual(m.allowed_mentions?.parse, [], 'nobody pinged');
  });

  test('a mention in a channel starts a thread from the message; follow-ups need no mention', async () => {
    const channel = guild.channels[1]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'how do I rotate logs?',
      mentionsBot: true,
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.starterMessageId === msg.id));
    await waitForBotText(thread.id, 'how do I rotate logs?');
    await d.userMessage({
      guildId: guild.id,
      channelId: thread.id,
      userId: bob,
      content: 'and compress them?',
    });
    const replies = await waitForBotText(thread.id, 'and compress them?');
    assert.equal(replies.length, 2);
    const prompt = JSON.stringify(h.llm.requests.at(-1)?.body.messages);
    assert.match(prompt, /rotate logs/, 'the thread history came along');
  });

  test('a PDF dropped in a channel is found by /ask in that channel; the other guild cannot see it', async () => {
    const channel = guild.channels[0]?.id ?? '';
    await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'the runbook',
      attachments: [
        {
          filename: 'runbook.pdf',
          bytes: await buildTextPdf([
            'Intro.',
            'Restart the ingest service with make restart-ingest.',
          ]),
        },
      ],
    });
    await h.app.store.kv.get('warm');
    h.llm.setResponder((req: Req): ScriptedReply => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'restart ingest' } }] };
    });
    await d.slashCommand({
      guildId: guild.id,
      channelId: channel,
      userId: bob,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'how do I restart ingest?' }],
    });
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.name === 'how do I restart ingest?'),
    );
    const replies = await waitForBotText(thread.id, 'TOOL RESULT');
    assert.match(replies.map((m) => m.content).join(''), /runbook\.pdf, page 2/);

    const otherChannel = other.channels[0]?.id ?? '';
    await d.slashCommand({
      guildId: other.id,
      channelId: otherChannel,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'restart ingest in the other guild?' }],
    });
    const t2 = await d.waitFor(() =>
      d.threads().find((t) => t.name === 'restart ingest in the other guild?'),
    );
    const r2 = await waitForBotText(t2.id, 'TOOL RESULT');
    assert.doesNotMatch(r2.map((m) => m.content).join(''), /runbook/);
    h.llm.setResponder((req: Req) => ({
      content: `echo: ${String(req.messages.at(-1)?.content)}`,
    }));
  });

  test('sharing from a channel not everyone can view says who will then see the file, and shares on "confirm share"', async () => {
    const channel = guild.channels[1]?.id ?? '';
    d.setPermissionOverwrites(channel, [
      { id: guild.id, type: 0, allow: '0', deny: String(Perm.ViewChannel) },
      { id: bob, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
      { id: d.botUserId, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
    ]);
    h.llm.setResponder((req: Req): ScriptedReply => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'search_attachment', arguments: { query: 'quarzelite budget' } }],
      };
    });
    const searchFromGeneral = async (question: string) => {
      await d.slashCommand({
        guildId: guild.id,
        channelId: guild.channels[0]?.id ?? '',
        userId: alice,
        name: 'ask',
        options: [{ name: 'question', type: 3, value: question }],
      });
      const t = await d.waitFor(() => d.threads().find((x) => x.name === question));
      return (await waitForBotText(t.id, 'TOOL RESULT')).map((m) => m.content).join('');
    };
    const share = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: bob,
      content: 'share this with the server',
      mentionsBot: true,
      attachments: [
        { filename: 'quarzelite.txt', bytes: Buffer.from('The quarzelite budget is 42.\n') },
      ],
    });
    await h.handled(share.id);
    const asked = (await waitForBotText(channel, 'confirm share')).map((m) => m.content).join('');
    // alice owns the server and bob has his own overwrite: 2 people can see the channel.
    assert.match(asked, /quarzelite\.txt is in a private channel that 2 people can see/);
    assert.match(asked, /everyone in the server can ask me about it/);
    assert.doesNotMatch(await searchFromGeneral('quarzelite before?'), /quarzelite\.txt/);

    const confirm = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: bob,
      content: 'confirm share',
      mentionsBot: true,
    });
    await h.handled(confirm.id);
    await waitForBotText(channel, 'Shared quarzelite.txt with the whole server');
    assert.match(await searchFromGeneral('quarzelite after?'), /quarzelite\.txt/);
    h.llm.setResponder((req: Req) => ({
      content: `echo: ${String(req.messages.at(-1)?.content)}`,
    }));
  });

  test('sharing from a DM asks first, naming that only the asker sees the file now', async () => {
    const dm = d.dmChannelId(alice);
    const share = await d.userMessage({
      channelId: dm,
      userId: alice,
      content: 'share this with the server',
      attachments: [{ filename: 'dm-notes.txt', bytes: Buffer.from('notes\n') }],
    });
    await h.handled(share.id);
    const asked = (await waitForBotText(dm, 'confirm share')).map((m) => m.content).join('');
    assert.match(asked, /dm-notes\.txt is in this direct message, where only you can see it/);
  });

  test('a 5,000-character answer with a code block is split at 2,000 without breaking the fence', async () => {
    const code = Array.from(
      { length: 60 },
      (_, i) => `const value${i} = compute(${i}); // step ${i}`,
    ).join('\n');
    const prose = Array.from(
      { length: 25 },
      (_, i) => `Sentence ${i} explains the pipeline in some detail.`,
    ).join(' ');
    h.llm.enqueue({ content: `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${prose} LAST-WORD` });
    const channel = guild.channels[1]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'long please',
      mentionsBot: true,
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.starterMessageId === msg.id));
    const parts = await waitForBotText(thread.id, 'LAST-WORD', 15_000);
    assert.ok(parts.length >= 3);
    for (const p of parts) {
      assert.ok([...p.content].length <= 2000);
      assert.equal(fences(p.content) % 2, 0, 'balanced fences');
    }
  });

  test('/forget is refused for someone else and done for the thread starter', async () => {
    const channel = guild.channels[0]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'remember ORCHID',
      mentionsBot: true,
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.starterMessageId === msg.id));
    await waitForBotText(thread.id, 'remember ORCHID');
    const refused = await d.slashCommand({
      guildId: guild.id,
      channelId: thread.id,
      userId: bob,
      name: 'forget',
      memberPermissions: '2048',
    });
    const r1 = await d.waitFor(() =>
      d.interactions().find((i) => i.id === refused.id && i.original?.content),
    );
    assert.match(r1.original?.content ?? '', /Only the person who started this thread/);
    assert.ok(r1.ephemeral);
    const done = await d.slashCommand({
      guildId: guild.id,
      channelId: thread.id,
      userId: alice,
      name: 'forget',
    });
    const r2 = await d.waitFor(() =>
      d.interactions().find((i) => i.id === done.id && i.original?.content),
    );
    assert.match(r2.original?.content ?? '', /forgotten this thread/);
    await d.userMessage({
      guildId: guild.id,
      channelId: thread.id,
      userId: alice,
      content: 'what did I ask you to remember?',
      mentionsBot: true,
    });
    await waitForBotText(thread.id, 'what did I ask you to remember?');
    assert.doesNotMatch(JSON.stringify(h.llm.requests.at(-1)?.body.messages), /ORCHID/);
  });

  test('/files lists what the bot can see, only to the asker; /summarize posts a summary', async () => {
    const channel = guild.channels[0]?.id ?? '';
    const files = await d.slashCommand({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      name: 'files',
    });
    const rec = await d.waitFor(() =>
      d.interactions().find((i) => i.id === files.id && i.original?.content),
    );
    assert.ok(rec.ephemeral);
    assert.match(rec.original?.content ?? '', /runbook\.pdf/);

    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'our budget is 48,500',
      mentionsBot: true,
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.starterMessageId === msg.id));
    await waitForBotText(thread.id, 'budget');
    h.vision.setResponder(() => ({ content: 'unused' }));
    h.llm.enqueue({ content: '- Budget: 48,500' });
    await d.slashCommand({
      guildId: guild.id,
      channelId: thread.id,
      userId: alice,
      name: 'summarize',
    });
    const out = await waitForBotText(thread.id, 'Summary of this thread so far');
    assert.match(out.map((m) => m.content).join('\n'), /Budget: 48,500/);
  });

  test('a dropped gateway connection resumes; the turn in flight finishes and posts', async () => {
    const channel = guild.channels[1]?.id ?? '';
    h.llm.enqueue({ content: 'answered across a reconnect', delayMs: 1500 });
    const msg = await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'slow one',
      mentionsBot: true,
    });
    const thread = await d.waitFor(() => d.threads().find((t) => t.starterMessageId === msg.id));
    d.dropGatewayConnection({ resumable: true });
    // Sent while the bot is disconnected: replayed on RESUME.
    await d.userMessage({
      guildId: guild.id,
      channelId: thread.id,
      userId: bob,
      content: 'sent during the outage',
    });
    await waitForBotText(thread.id, 'answered across a reconnect', 15_000);
    await waitForBotText(thread.id, 'sent during the outage', 15_000);
    assert.ok(d.gatewaySessions().resumed >= 1);
  });
});
