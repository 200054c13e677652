// "@threadmind what is the order API timeout?" through Bolt, the agent and the knowledge_search
// tool against the real Neo4j: cited for someone allowed to see the runbook, no evidence for
// someone who is not, and the outdated ADR marked as outdated.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import { type KgHarness, startKg } from '../knowledge/kg-harness.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { sourcesLine, waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

describe('knowledge in Slack', () => {
  let kg: KgHarness;
  let h: Harness;
  before(async () => {
    kg = await startKg();
    const login = kg.server.reader ?? { user: kg.server.user, password: kg.server.password };
    h = await startHarness({
      env: { NEO4J_URI: kg.server.uri, NEO4J_USER: login.user, NEO4J_PASSWORD: login.password },
      overrides: {
        knowledge: {
          principalGroups: {
            'slack:UENG1': [kg.corpus.groups.eng],
            'slack:USEC1': [kg.corpus.groups.sec],
          },
          groupPartitions: kg.settings.groupPartitions,
        },
      },
    });
    h.llm.setResponder((req: Req): ScriptedReply => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
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

  test('/readyz includes the graph', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.port}/readyz`);
    const body = (await res.json()) as { checks: { name: string; ok: boolean }[] };
    assert.ok(body.checks.find((c) => c.name === 'neo4j')?.ok);
  });
});
