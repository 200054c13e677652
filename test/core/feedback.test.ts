// FeedbackService and the sources line, against real stores: one vote per person per answer, a
// second replacing the first, votes from many writers at once all listed (the day index is
// appended under a store claim), exports that a spreadsheet cannot turn into formulas.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { ToolMessage } from '@langchain/core/messages';
import { createStore } from '../../src/compose/create-store.ts';
import { answerSources, linkedSources, sourcesMarkdown } from '../../src/core/answer-sources.ts';
import { FeedbackService, toCsv } from '../../src/core/feedback.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createMetrics } from '../../src/log/metrics.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestRedis } from '../support/redis-server.ts';

function service(store: Store, metricsByChannel = false) {
  const metrics = createMetrics();
  const feedback = new FeedbackService({
    store,
    metrics,
    log: silentLogger(),
    metricsByChannel,
    retentionDays: 90,
    maxReasonChars: 20,
  });
  return { feedback, metrics };
}

async function recorded(f: FeedbackService, project: string, channel = 'C1') {
  const id = randomUUID();
  await f.recordTurn({
    id,
    ref: { platform: 'slack', projectId: project, channelId: channel, sessionId: '1.0' },
    model: 'm1',
    settings: undefined,
    askedBy: 'UASK',
    at: Date.now(),
  });
  return id;
}

for (const kind of ['SQLite', 'Redis'] as const) {
  describe(`feedback on ${kind}`, async () => {
    const redis = kind === 'Redis' ? await startTestRedis() : undefined;
    const store = await createStore(redis ? redis.url : 'sqlite://:memory:');
    after(async () => {
      await store.close();
      await redis?.stop();
    });

    test('a second vote replaces the first; an unknown answer or a bad vote is refused', async () => {
      const project = `T${randomUUID().slice(0, 8)}`;
      const { feedback, metrics } = service(store);
      const id = await recorded(feedback, project);
      const base = { platform: 'slack' as const, projectId: project, id, userId: 'U1' };
      assert.equal((await feedback.vote({ ...base, vote: 'up' })).status, 'stored');
      const again = await feedback.vote({ ...base, vote: 'down', reason: `${'x'.repeat(30)}` });
      assert.equal(again.status, 'replaced');
      assert.equal((await feedback.vote({ ...base, id: 'nope', vote: 'up' })).status, 'unknown');
      assert.equal(
        (await feedback.vote({ ...base, vote: 'maybe' as unknown as 'up' })).status,
        'invalid',
      );
      // Another workspace does not see this answer.
      assert.equal(
        (await feedback.vote({ ...base, projectId: 'TOTHER', vote: 'up' })).status,
        'unknown',
      );
      const rows = await feedback.rows('slack', project);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.vote, 'down');
      assert.equal(rows[0]?.reason, 'x'.repeat(20), 'the reason is cut at maxReasonChars');
      const text = await metrics.registry.getSingleMetricAsString('threadmind_feedback_total');
      assert.doesNotMatch(text, /channel=/, 'no channel label unless configured');
    });

    test('votes written at once by many people are all exported', async () => {
      const project = `T${randomUUID().slice(0, 8)}`;
      // Two services on one store stand for two replicas.
      const a = service(store).feedback;
      const b = service(store, true).feedback;
      const ids = await Promise.all([recorded(a, project), recorded(a, project, 'C2')]);
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).vote({
            platform: 'slack',
            projectId: project,
            id: ids[i % 2] as string,
            userId: `U${i}`,
            vote: i % 3 ? 'up' : 'down',
          }),
        ),
      );
      const rows = await a.rows('slack', project);
      assert.equal(rows.length, 40);
      assert.equal(new Set(rows.map((r) => r.voter)).size, 40);
    });
  });
}

test('the CSV export quotes what needs it and makes formulas inert', () => {
  const row = {
    turn_id: 't',
    answered_at: 'a',
    platform: 'slack',
    project: 'T1',
    channel: 'C1',
    session: '1.0',
    asked_by: 'U1',
    model: 'm',
    settings: '{"a":1,"b":2}',
    voter: 'U2',
    vote: 'down' as const,
    reason: '=HYPERLINK("x")',
    voted_at: 'v',
  };
  const [, line] = toCsv([row]).split('\n');
  assert.ok(line?.includes('"{""a"":1,""b"":2}"'), line);
  assert.ok(line?.includes(`"'=HYPERLINK(""x"")"`), line);
});

test('sources come from tool artifacts, once each, and the line marks outdated documents', () => {
  const tool = (sources: unknown) =>
    new ToolMessage({ content: 'x', tool_call_id: randomUUID(), artifact: { sources } });
  const sources = answerSources([
    tool([
      { kind: 'file', title: 'a.pdf', page: 3 },
      { kind: 'file', title: 'a.pdf', page: 3 },
    ]),
    tool([{ kind: 'knowledge', title: 'kb://x', uri: 'kb://x', freshness: 'stale' }]),
    tool([{ kind: 'bogus' }]),
    new ToolMessage({ content: 'no artifact', tool_call_id: 'c' }),
  ]);
  assert.equal(sources.length, 2);
  assert.equal(sourcesMarkdown(sources), 'Sources: `a.pdf, p. 3` · `kb://x (outdated)`');
  assert.equal(sourcesMarkdown([]), undefined);
  const many = Array.from({ length: 9 }, (_, i) => ({ kind: 'file' as const, title: `f${i}` }));
  assert.match(sourcesMarkdown(many) ?? '', /and 3 more$/);
});

test('as links: the linked sources shown, the others named, the rest counted, labels kept short', () => {
  const web = (i: number) => ({
    kind: 'web' as const,
    title: `Page ${i} with a long title`,
    link: `https://x.test/${i}`,
  });
  assert.equal(linkedSources([{ kind: 'file', title: 'notes.txt' }], 20), undefined);
  const some = linkedSources([web(1), { kind: 'knowledge', title: 'kb://r', uri: 'kb://r' }], 12);
  assert.deepEqual(some, {
    links: [{ url: 'https://x.test/1', label: 'Page 1 with…' }],
    others: 'Also: kb://r',
  });
  const many = linkedSources(
    Array.from({ length: 9 }, (_, i) => web(i)),
    100,
  );
  assert.equal(many?.links.length, 6);
  assert.equal(many?.others, 'and 3 more');
});
