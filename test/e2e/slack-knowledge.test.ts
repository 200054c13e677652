// "@threadmind what is the order API timeout?" through Bolt, the agent and the knowledge_search
// tool against the real Neo4j: cited for someone allowed to see the runbook, no evidence for
// someone who is not, and the outdated ADR marked as outdated. In a channel where not everyone may
// read the evidence the answer goes to the asker alone, and nothing of it reaches a later asker.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestDirectory } from '../../src/knowledge/ingest.ts';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { type KgHarness, startKg } from '../knowledge/kg-harness.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { sourcesLine, waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

const BOT_ONLY = 'KB-ANSWER';

describe('knowledge in Slack', () => {
  let kg: KgHarness;
  let h: Harness;
  const requests: string[] = [];
  before(async () => {
    kg = await startKg();
    const login = kg.server.reader ?? { user: kg.server.user, password: kg.server.password };
    h = await startHarness({
      env: { NEO4J_URI: kg.server.uri, NEO4J_USER: login.user, NEO4J_PASSWORD: login.password },
      overrides: {
        knowledge: {
          principalGroups: {
            'slack:T0EMU00001:UENG1': [kg.corpus.groups.eng],
            'slack:T0EMU00001:UENG2': [kg.corpus.groups.eng],
            'slack:T0EMU00001:USEC1': [kg.corpus.groups.sec],
          },
          groupPartitions: kg.settings.groupPartitions,
        },
        channels: { overrides: { 'slack:T0EMU00001:C74': { knowledgeAudience: 'asker' } } },
      },
    });
    h.llm.setResponder((req: Req): ScriptedReply => {
      requests.push(JSON.stringify(req.messages));
      const last = req.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `${BOT_ONLY} TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'knowledge_search', arguments: { query: 'order API timeout' } }],
      };
    });
  });
  after(async () => {
    await h.close();
    await kg.close();
  });

  test('an engineer gets cited evidence, with the superseded ADR marked outdated', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C70',
      user: 'UENG1',
      text: `<@${h.slack.botUserId}> what is the order API timeout?`,
    });
    const text = (await waitForReply(h.slack, 'C70', ts, 'TOOL RESULT', 15_000))
      .map((m) => m.text)
      .join('\n');
    assert.ok(text.includes(kg.corpus.uri('eng/runbook-order-api.md')), text);
    assert.match(text, /3 seconds/);
    // Under the answer: the documents it used, the superseded ADR marked outdated.
    const sources = await sourcesLine(h.slack, 'C70', ts);
    const runbook = kg.corpus.uri('eng/runbook-order-api.md');
    const adr1 = kg.corpus.uri('eng/adr/adr-001-timeouts.md');
    assert.ok(sources.includes(`\`${runbook}\``), sources);
    assert.ok(sources.includes(`\`${adr1} (outdated)\``), sources);
    assert.match(
      text,
      new RegExp(
        `${kg.corpus.uri('eng/adr/adr-001-timeouts.md').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[^\\n]*outdated`,
      ),
    );
  });

  test('someone without access gets no evidence, and the bot says so', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C71',
      user: 'UOUT9',
      text: `<@${h.slack.botUserId}> what is the order API timeout?`,
    });
    const text = (await waitForReply(h.slack, 'C71', ts, 'TOOL RESULT', 15_000))
      .map((m) => m.text)
      .join('\n');
    assert.match(text, /No usable evidence was found/);
    assert.ok(!text.includes(kg.corpus.uriPrefix), 'no source of the knowledge base is named');
  });

  const ask = async (channel: string, user: string, thread_ts?: string) => {
    const { ts } = await h.slack.postUserMessage({
      channel,
      user,
      text: `<@${h.slack.botUserId}> what is the order API timeout?`,
      ...(thread_ts ? { thread_ts } : {}),
    });
    // A mention arrives as `message` and `app_mention`: one of the two is the turn.
    const done = (await h.handled(ts, 2, 20_000)).find((e) => e.handled.status === 'turn');
    return { ts, done };
  };
  const ephemeralsIn = (channel: string) =>
    h.slack.ephemeralMessages().filter((e) => e.channel === channel);
  const channelText = (channel: string, ts: string) =>
    h.slack
      .messages(channel, ts)
      .map((m) => m.text)
      .join('\n');

  test('evidence not everyone in the channel may read: the asker alone gets the answer; a later asker gets none of it', async () => {
    h.slack.setChannelMembers('C72', ['UENG1', 'UOUT9', h.slack.botUserId]);
    const { ts, done } = await ask('C72', 'UENG1');
    assert.ok(done?.handled.status === 'turn' && done.handled.outcome.status === 'answered');
    assert.equal(done.handled.outcome.private, true);
    const [privately, ...more] = ephemeralsIn('C72');
    assert.equal(more.length, 0);
    assert.equal(privately?.user, 'UENG1');
    assert.equal(privately?.thread_ts, ts);
    assert.ok(privately?.text.includes(kg.corpus.uri('eng/runbook-order-api.md')), privately?.text);
    const shown = channelText('C72', ts);
    assert.match(shown, /sent my answer privately/);
    assert.ok(!shown.includes(kg.corpus.uriPrefix), shown);
    assert.ok(!shown.includes(BOT_ONLY), shown);

    // The other member follows up in the same thread: no request to the model carries the
    // earlier evidence or the private answer.
    requests.length = 0;
    await ask('C72', 'UOUT9', ts);
    assert.ok(requests.length >= 2, 'the follow-up reached the model');
    for (const r of requests) {
      assert.ok(!r.includes(kg.corpus.uriPrefix), `a source reached the follow-up: ${r}`);
      assert.ok(!/3 seconds/.test(r), `evidence reached the follow-up: ${r}`);
    }
    assert.equal(ephemeralsIn('C72').length, 1, 'nothing more was private');
  });

  test('evidence every member may read: answered in the channel', async () => {
    h.slack.setChannelMembers('C73', ['UENG1', 'UENG2', h.slack.botUserId]);
    const { ts } = await ask('C73', 'UENG2');
    assert.ok(channelText('C73', ts).includes(kg.corpus.uri('eng/runbook-order-api.md')));
    assert.equal(ephemeralsIn('C73').length, 0);
  });

  test('a channel set to the asker’s access answers in the channel', async () => {
    h.slack.setChannelMembers('C74', ['UENG1', 'UOUT9', h.slack.botUserId]);
    const { ts } = await ask('C74', 'UENG1');
    assert.ok(channelText('C74', ts).includes(kg.corpus.uri('eng/runbook-order-api.md')));
    assert.equal(ephemeralsIn('C74').length, 0);
  });

  test('user groups: a member added to a Slack user group finds its document at the next question, and not once removed', async () => {
    const group = `SKB${kg.corpus.tag.toUpperCase()}`;
    const team = h.slack.teamId;
    const prefix = `kb-usergroup-${kg.corpus.tag}://`;
    const dir = mkdtempSync(path.join(tmpdir(), 'tm-kg-usergroup-'));
    try {
      writeFileSync(
        path.join(dir, 'release-train.md'),
        `---\ngroups: ["slack:${team}:${group}"]\n---\n# Release train\n\nThe order API timeout for the release train is 9 seconds.\n`,
      );
      await ingestDirectory({ driver: kg.writer, root: dir, uriPrefix: prefix });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const groups = h.app.groups;
    assert.ok(groups, 'group sync is on with knowledge configured');
    await groups.whenSynced('slack', team);
    const changed = () =>
      new Promise<void>((resolve) => groups.events.once('changed', () => resolve()));
    h.slack.setChannelMembers('C75', ['UGRP1', h.slack.botUserId]);
    const answer = async () => {
      const { ts } = await ask('C75', 'UGRP1');
      return channelText('C75', ts);
    };
    assert.ok(!(await answer()).includes(prefix), 'not a member yet');

    let synced = changed();
    await h.slack.setUserGroup(group, { handle: 'release-train', users: ['UGRP1', 'UENG1'] });
    await synced;
    assert.ok((await answer()).includes(`${prefix}release-train.md`), 'added: found');

    synced = changed();
    await h.slack.setUserGroup(group, { users: ['UENG1'] });
    await synced;
    assert.ok(!(await answer()).includes(prefix), 'removed: gone');
    assert.ok(
      h.slack.calls.some((c) => c.method === 'usergroups.users.list'),
      'members were read from Slack',
    );
  });

  test('/readyz includes the graph', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.port}/readyz`);
    const body = (await res.json()) as { checks: { name: string; ok: boolean }[] };
    assert.ok(body.checks.find((c) => c.name === 'neo4j')?.ok);
  });
});
