// Audience-aware knowledge answers on Discord, through discord.js, the emulator and the real Neo4j:
// the channel's readers come from the guild's roles and the channel's permission overwrites; an
// answer whose evidence some reader may not see goes to the asker by DM and the thread gets a note.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestDirectory } from '../../src/knowledge/ingest.ts';
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
  let engRole = '';
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

  const ask = async (channelId: string, userId = alice) => {
    const guild = d.guilds[0]?.id ?? '';
    const msg = await d.userMessage({
      guildId: guild,
      channelId,
      userId,
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
    engRole = eng;
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

  test('roles: a member given a role finds its document at the next question, and not once the role is taken away', async () => {
    const guild = d.guilds[0]?.id ?? '';
    const channel = d.guilds[0]?.channels[1]?.id ?? '';
    const role = d.addRole(guild, 'release-train', 0n);
    const prefix = `kb-role-${kg.corpus.tag}://`;
    const dir = mkdtempSync(path.join(tmpdir(), 'tm-kg-role-'));
    try {
      writeFileSync(
        path.join(dir, 'release-train.md'),
        `---\ngroups: ["discord:${guild}:${role}"]\n---\n# Release train\n\nThe order API timeout for the release train is 9 seconds.\n`,
      );
      await ingestDirectory({ driver: kg.writer, root: dir, uriPrefix: prefix });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // bob (in no group) asks where alice (the owner), mina (eng) and bob can read.
    const bob = d.users[1]?.id ?? '';
    const eng = engRole;
    assert.ok(eng, 'the eng role of the test before');
    d.setPermissionOverwrites(channel, [
      { id: guild, type: 0, allow: '0', deny: String(Perm.ViewChannel) },
      { id: eng, type: 0, allow: String(Perm.ViewChannel), deny: '0' },
      { id: bob, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
      { id: d.botUserId, type: 1, allow: String(Perm.ViewChannel), deny: '0' },
    ]);
    const groups = h.app.groups;
    assert.ok(groups, 'role sync is on with knowledge configured');
    await groups.whenSynced('discord', guild);
    const changed = () =>
      new Promise<void>((resolve) => groups.events.once('changed', () => resolve()));
    assert.ok(!(await ask(channel, bob)).inThread.includes(prefix), 'no role yet');

    // The other readers hold it too, so everyone reading the channel may read the document.
    let synced = changed();
    d.setMemberRoles(guild, alice, [role]);
    await synced;
    synced = changed();
    d.setMemberRoles(guild, mina, [eng, role]);
    await synced;
    synced = changed();
    d.setMemberRoles(guild, bob, [role]);
    await synced;
    const given = (await ask(channel, bob)).inThread;
    assert.ok(given.includes(`${prefix}release-train.md`), given);

    synced = changed();
    d.setMemberRoles(guild, bob, []);
    await synced;
    assert.ok(!(await ask(channel, bob)).inThread.includes(prefix), 'role taken away');
  });
});
