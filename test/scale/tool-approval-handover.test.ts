// Split roles on Redis: the worker that posted an approval card stops while the call waits; the
// click reaches the ingress, and another worker runs the resumed turn. Nothing is lost: the
// pending call lives in the Store, the resume is a queued message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningApp } from '../../src/compose/app.ts';
import { CoreWatch } from '../contract/flow-driver.ts';
import { type Harness, startHarness, startWorkerBeside } from '../support/harness.ts';
import { type HttpTestServer, startHttpTestServer } from '../support/mcp-test-server.ts';
import { startPrivateRedis, type TestRedis } from '../support/redis-server.ts';

const CHANNEL = 'CSPLIT0001';
const USER = 'U0SPLIT001';
const DELETE = { name: 'test__delete_everything', arguments: { project: 'SPLIT' } };

describe('split roles: a worker stops while a call waits for approval', () => {
  let redis: TestRedis;
  let server: HttpTestServer;
  let h: Harness;
  let worker: RunningApp | undefined;
  const watch = new CoreWatch();

  before(async () => {
    redis = await startPrivateRedis();
    server = await startHttpTestServer();
    h = await startHarness({
      env: { THREADMIND_ROLE: 'ingress', STORE_URL: redis.url },
      overrides: {
        llm: { maxRetries: 0 },
        scale: { queue: { name: `approvals-${process.pid}`, orderPollMs: 20 } },
        mcp: { servers: [{ name: 'test', url: server.url }] },
        channels: { overrides: { [`slack:T0EMU00001:${CHANNEL}`]: { mcpServers: 'test' } } },
      },
    });
    watch.watch(h.app.core);
    worker = await startWorkerBeside(h.config);
    watch.watch(worker.core);
  });
  after(async () => {
    await worker?.stop();
    await h?.close();
    await server?.close();
    await redis?.stop();
  });

  test('the click after the worker stopped is resumed by another worker', async () => {
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'It waits for your approval.' });
    const { ts } = await h.slack.postUserMessage({
      channel: CHANNEL,
      user: USER,
      text: `<@${h.slack.botUserId}> clean up SPLIT`,
    });
    await watch.handled(ts);
    const card = await h.slack.waitFor(() =>
      h.slack
        .messages(CHANNEL, ts)
        .find((m) => m.bot_id !== undefined && JSON.stringify(m.blocks ?? []).includes('tm:0')),
    );
    await worker?.stop();
    worker = await startWorkerBeside(h.config);
    watch.watch(worker.core);
    h.llm.enqueue({ toolCalls: [DELETE] }, { content: 'Done on the new worker.' });
    const since = watch.interactions;
    await h.slack.pressButton({ channel: CHANNEL, ts: card.ts, user: USER, actionId: 'tm:0' });
    assert.equal((await watch.interacted(since, USER)).outcome, 'done');
    await h.slack.waitFor(() =>
      h.slack.messages(CHANNEL, ts).find((m) => m.text.includes('Done on the new worker.')),
    );
    assert.deepEqual(server.state.deletions, [{ project: 'SPLIT' }]);
  });
});
