import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../support/harness.ts';
import { waitForReply } from '../support/slack-helpers.ts';

describe('health, readiness and metrics', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    h = await startHarness();
    base = `http://127.0.0.1:${h.app.port}`;
  });
  after(async () => {
    await h.close();
  });

  test('/healthz answers while the process is up', async () => {
    const res = await fetch(`${base}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  test('/readyz is 200 when store and model answer, and 503 naming the model when it is down', async () => {
    const ok = await fetch(`${base}/readyz`);
    assert.equal(ok.status, 200);
    h.llm.setDown(true);
    try {
      const down = await fetch(`${base}/readyz`);
      assert.equal(down.status, 503);
      const body = (await down.json()) as {
        checks: { name: string; ok: boolean; error?: string }[];
      };
      assert.deepEqual(
        body.checks.filter((c) => !c.ok).map((c) => c.name),
        ['llm_text'],
      );
      assert.ok(body.checks.find((c) => c.name === 'store')?.ok);
    } finally {
      h.llm.setDown(false);
    }
  });

  test('/metrics reports turns, tokens, queue depth and errors in Prometheus text', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C70',
      user: 'U1',
      text: `<@${h.slack.botUserId}> count me`,
    });
    await waitForReply(h.slack, 'C70', ts, 'count me');
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(
      text,
      /threadmind_turn_duration_seconds_count\{platform="slack",outcome="answered"\} [1-9]/,
    );
    assert.match(text, /threadmind_llm_tokens_total\{direction="in"\} [1-9]/);
    assert.match(text, /threadmind_llm_tokens_total\{direction="out"\} [1-9]/);
    assert.match(text, /threadmind_queue_depth /);
    assert.match(text, /# TYPE threadmind_errors_total counter/);
    assert.match(text, /# TYPE threadmind_duplicate_events_total counter/);
  });

  test('unknown paths are 404', async () => {
    assert.equal((await fetch(`${base}/nope`)).status, 404);
  });
});
