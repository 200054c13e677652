// Audience-aware knowledge answers on Discord, through discord.js, the emulator and the real Neo4j:
// the channel's readers come from the guild's roles and the channel's permission overwrites; an
// answer whose evidence some reader may not see goes to the asker by DM and the thread gets a note.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Perm } from '../emulators/discord/permissions.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { type KgHarness, startKg } from '../knowledge/kg-harness.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };

describe('knowledge in Discord', () => {
  let kg: KgHarness;
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  let alice: string;
  let mina: string;
  before(async () => {
    kg = await startKg();
    const login = kg.server.reader ?? { user: kg.server.user, password: kg.server.password };
    h = await startHarness({
      discord: true,
      env: { NEO4J_URI: kg.server.uri, NEO4J_USER: login.user, NEO4J_PASSWORD: login.password },
      overrides: { knowledge: { groupPartitions: kg.settings.groupPartitions } },
    });
    d = h.discord as NonNullable<Harness['discord']>;
    // bob, the second user, is a member of every channel and of no group.
    [alice, , mina] = d.users.map((u) => u.id) as [string, string, string];
    // Memberships from the graph: alice (the guild's owner) and mina are engineers, bob is not.
    await kg.writer.executeQuery(
      `UNWIND $ids AS id
       MERGE (p:Principal {principal_id: id})
       MERGE (g:Group {name: $eng})
       MERGE (p)-[:MEMBER_OF]->(g)`,
      {
        ids: [`discord:${d.guilds[0]?.id}:${alice}`, `discord:${d.guilds[0]?.id}:${mina}`],
        eng: kg.corpus.groups.eng,
      },
    );
    h.llm.setResponder((req: Req): ScriptedReply => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'knowledge_search', arguments: { query: 'order API timeout' } }],
      };
    });
  });
  after(async () => {
    await h?.close();
    await kg?.close();
  });

  const ask = async (channelId: string) => {
    const guild = d.guilds[0]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild,
      channelId,
      userId: alice,
      content: 'what is the order API timeout?',
      mentionsBot: true,
    });
    await h.handled(msg.id, 1, 20_000);
    const thread = d.threads().find((t) => t.starterMessageId === msg.id);
    assert.ok(thread);
    const inThread = d
      .messages(thread.id)
      .filter((m) => m.author.id === d.botUserId)
      .map((m) => m.content)
      .join('\n');
    return { inThread };
  };
  const dmText = () =>
    d
      .messages(d.dmChannelId(alice))
      .filter((m) => m.author.id === d.botUserId)
      .map((m) => m.content)
      .join('\n');

  test('a reader who may not see the evidence: the asker gets the answer by DM, the thread a note', async () => {
    const { inThread } = await ask(d.guilds[0]?.channels[0]?.id ?? '');
    assert.match(inThread, /sent my answer privately/);
    assert.ok(!inThread.includes(kg.corpus.uriPrefix), inThread);
    assert.ok(dmText().includes(kg.corpus.uri('eng/runbook-order-api.md')), dmText());
  });

  test('a channel only engineers can view (role overwrites): answered in the thread', async () => {
    const guild = d.guilds[0]?.id ?? '';
    const channel = d.guilds[0]?.channels[1]?.id ?? '';
    const eng = d.addRole(guild, 'eng', 0n);
    d.addMember(guild, mina, [eng]);
    d.setPermissionOverwrites(channel, [
      { id: guild, type: 0, allow: '0', deny: String(Perm.ViewChannel) },
      { id: eng, type: 0, allow: String(Perm.ViewChannel), deny: '0' },
      // The bot's own view comes from its member overwrite; the bot is never counted.
      { id: d.botUserId, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
    ]);
    const before = dmText();
    const { inThread } = await ask(channel);
    assert.ok(inThread.includes(kg.corpus.uri('eng/runbook-order-api.md')), inThread);
    assert.equal(dmText(), before, 'nothing was sent privately');
  });
});
