// Many workspaces installed through Slack's OAuth v2 flow: each is answered with its own token,
// tokens are sealed at rest, and an uninstall ends a workspace's tokens at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import type { ApiCall } from '../emulators/slack/index.ts';
import { type Harness, newEncryptionKey, startHarness } from '../support/harness.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { waitForReply } from '../support/slack-helpers.ts';
import { installWorkspace } from '../support/slack-oauth.ts';
import { commitPending } from '../support/sqlite-committed.ts';

const suffix = () => Math.random().toString(36).slice(2, 8).toUpperCase();

/** Calls that acted in a channel, by the workspace whose token made them. */
function channelCalls(calls: ApiCall[], channel: string): ApiCall[] {
  return calls.filter((c) => c.args.channel === channel || c.args.channel_id === channel);
}

async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Slack OAuth install (SQLite store)', () => {
  let h: Harness;
  const teamA = `TA${suffix()}`;
  const teamB = `TB${suffix()}`;
  before(async () => {
    h = await startHarness({ slackOAuth: { encryptionKey: newEncryptionKey() } });
  });
  after(async () => {
    await h.close();
  });

  test('two workspaces installed through the flow are each answered with their own token', async () => {
    const a = await installWorkspace(h, { teamId: teamA });
    assert.equal(a.status, 200, a.body);
    assert.match(a.body, /installed/);
    const b = await installWorkspace(h, { teamId: teamB });
    assert.equal(b.status, 200, b.body);
    const wsA = h.slack.installedWorkspace(teamA);
    const wsB = h.slack.installedWorkspace(teamB);
    assert.ok(wsA && wsB);
    assert.notEqual(wsA.botToken, wsB.botToken);

    const inA = await h.slack.postUserMessage({
      channel: 'CA1',
      user: 'UA1',
      teamId: teamA,
      text: `<@${wsA.botUserId}> hello from A`,
    });
    const inB = await h.slack.postUserMessage({
      channel: 'CB1',
      user: 'UB1',
      teamId: teamB,
      text: `<@${wsB.botUserId}> hello from B`,
    });
    await waitForReply(h.slack, 'CA1', inA.ts, 'hello from A');
    await waitForReply(h.slack, 'CB1', inB.ts, 'hello from B');
    const callsA = channelCalls(h.slack.calls, 'CA1');
    const callsB = channelCalls(h.slack.calls, 'CB1');
    assert.ok(
      callsA.some((c) => c.method === 'chat.startStream' || c.method === 'chat.postMessage'),
    );
    assert.ok(
      callsB.some((c) => c.method === 'chat.startStream' || c.method === 'chat.postMessage'),
    );
    assert.deepEqual([...new Set(callsA.map((c) => c.teamId))], [teamA], 'A only with A’s token');
    assert.deepEqual([...new Set(callsB.map((c) => c.teamId))], [teamB], 'B only with B’s token');
    assert.ok(
      h.slack.calls.every((c) => c.ok || c.method === 'assistant.threads.setStatus'),
      `no call was refused: ${JSON.stringify(h.slack.calls.filter((c) => !c.ok).map((c) => [c.method, c.error]))}`,
    );
  });

  test('the SQLite file holds no plaintext token', async () => {
    const wsA = h.slack.installedWorkspace(teamA);
    const wsB = h.slack.installedWorkspace(teamB);
    assert.ok(wsA && wsB);
    const file = h.config.storeUrl.slice('sqlite://'.length);
    commitPending(file);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare('SELECT key, value FROM kv').all() as {
        key: string;
        value: string;
      }[];
      const sealed = rows.filter((r) => r.key.includes(`slack:${teamA}:installation`));
      assert.equal(sealed.length, 1, 'the installation is stored under the workspace');
      assert.match(String(sealed[0]?.value), /tm1\./, 'stored sealed');
      for (const r of rows) {
        for (const token of [wsA.botToken, wsB.botToken]) {
          assert.ok(!r.value.includes(token), `plaintext token under ${r.key}`);
          assert.ok(!r.value.includes(wsA.botUserId) || !r.key.includes('installation'));
        }
      }
    } finally {
      db.close();
    }
    // The pages on disk too (the write-ahead log included), not just what SQL returns.
    for (const f of [file, `${file}-wal`]) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(f);
      } catch {
        continue;
      }
      assert.equal(bytes.indexOf(wsA.botToken), -1, `${path.basename(f)} holds A's token`);
      assert.equal(bytes.indexOf(wsB.botToken), -1, `${path.basename(f)} holds B's token`);
    }
  });

  test('a replayed redirect, or one without the installer’s cookie, installs nothing', async () => {
    const team = `TR${suffix()}`;
    const exchangesBefore = h.slack.callsTo('oauth.v2.access').length;
    const first = await installWorkspace(h, { teamId: team });
    assert.equal(first.status, 200);
    const replay = await fetch(first.redirectUrl, {
      headers: { cookie: first.cookie },
      redirect: 'manual',
    });
    assert.equal(replay.status, 400, 'the state works once');
    // Another browser's redirect: the state is valid but not this browser's.
    const base = `http://127.0.0.1:${h.app.port}`;
    const start = await fetch(`${base}/slack/install`, { redirect: 'manual' });
    const { redirectUrl } = h.slack.approveInstall(String(start.headers.get('location')), {
      teamId: `TX${suffix()}`,
      redirectUri: `${base}/slack/oauth_redirect`,
    });
    const forged = await fetch(redirectUrl, {
      headers: { cookie: first.cookie },
      redirect: 'manual',
    });
    assert.equal(forged.status, 400);
    assert.equal(
      h.slack.callsTo('oauth.v2.access').length - exchangesBefore,
      1,
      'only the first redirect exchanged its code',
    );
  });

  test('uninstalling removes the token at once; later events are refused quietly', async () => {
    const team = `TU${suffix()}`;
    assert.equal((await installWorkspace(h, { teamId: team })).status, 200);
    const ws = h.slack.installedWorkspace(team);
    assert.ok(ws);
    const key = `slack:${team}:installation`;
    assert.ok(await h.app.store.kv.get(key), 'stored after install');
    const delivery = await h.slack.uninstallApp(team);
    assert.equal(delivery.status, 200);
    await until(async () => (await h.app.store.kv.get(key)) === undefined, 'installation removed');

    const llmBefore = h.llm.requests.length;
    const callsBefore = h.slack.calls.length;
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel: 'CU1',
      user: 'UU1',
      teamId: team,
      text: `<@${ws.botUserId}> are you there?`,
    });
    // A late event (Slack sends none once the app is gone, but one in flight, or one for a
    // workspace never installed, still arrives).
    assert.ok(deliveries.length >= 1);
    assert.ok(
      deliveries.every((d) => d.status === 200),
      'acknowledged, so Slack does not retry',
    );
    const handled = await h.handled(ts, deliveries.length);
    assert.ok(handled.every((e) => e.handled.status === 'ignored'));
    assert.equal(h.llm.requests.length, llmBefore, 'no turn ran');
    assert.equal(h.slack.calls.length, callsBefore, 'no Web API call was made for it');
  });

  test('tokens_revoked removes the installation too', async () => {
    const team = `TV${suffix()}`;
    assert.equal((await installWorkspace(h, { teamId: team })).status, 200);
    const key = `slack:${team}:installation`;
    assert.ok(await h.app.store.kv.get(key));
    assert.equal((await h.slack.revokeBotToken(team)).status, 200);
    await until(async () => (await h.app.store.kv.get(key)) === undefined, 'installation removed');
  });

  test('with token rotation, an expiring token is renewed once and answers keep coming', async () => {
    const team = `TT${suffix()}`;
    // Installed with 2.5 hours left: inside threadmind's renewal margin, outside Bolt's own.
    h.slack.setTokenRotation(9000);
    try {
      assert.equal((await installWorkspace(h, { teamId: team })).status, 200);
      const first = h.slack.installedWorkspace(team);
      if (!first) throw new Error('not installed');
      assert.match(first.botToken, /^xoxe\.xoxb-/);
      h.slack.setTokenRotation(43_200);
      const before = h.slack.tokenRefreshes();
      // Two questions at once: the event's authorize and both turns read the installation together.
      const [q1, q2] = await Promise.all(
        ['one', 'two'].map((n) =>
          h.slack.postUserMessage({
            channel: 'CT1',
            user: 'UT1',
            teamId: team,
            text: `<@${first.botUserId}> rotation ${n}`,
          }),
        ),
      );
      await waitForReply(h.slack, 'CT1', q1?.ts ?? '', 'rotation one');
      await waitForReply(h.slack, 'CT1', q2?.ts ?? '', 'rotation two');
      assert.equal(h.slack.tokenRefreshes() - before, 1, 'the refresh token was spent once');
      const renewed = h.slack.installedWorkspace(team);
      assert.ok(renewed && renewed.botToken !== first.botToken);
      const refused = h.slack.calls.filter(
        (c) => c.error === 'invalid_refresh_token' || c.error === 'token_expired',
      );
      assert.deepEqual(refused, []);
      // The renewed token is stored sealed like the first.
      commitPending(h.config.storeUrl.slice('sqlite://'.length));
      const db = new DatabaseSync(h.config.storeUrl.slice('sqlite://'.length), { readOnly: true });
      try {
        const rows = db.prepare('SELECT value FROM kv').all() as { value: string }[];
        assert.ok(rows.every((r) => !r.value.includes(renewed.botToken)));
      } finally {
        db.close();
      }
    } finally {
      h.slack.setTokenRotation(undefined);
    }
  });

  test('an org-wide install answers in every workspace of the org with the org’s token', async () => {
    const org = `E${suffix()}`;
    const team = `TO${suffix()}`;
    assert.equal(
      (await installWorkspace(h, { teamId: team, enterpriseId: org, orgWide: true })).status,
      200,
    );
    const ws = h.slack.installedWorkspace(team, org);
    assert.ok(ws?.orgWide);
    const { ts } = await h.slack.postUserMessage({
      channel: 'CO1',
      user: 'UO1',
      teamId: team,
      enterpriseId: org,
      text: `<@${ws.botUserId}> hello org`,
    });
    await waitForReply(h.slack, 'CO1', ts, 'hello org');
    assert.ok(await h.app.store.kv.get(`slack:${org}:installation`), 'one record for the org');
  });

  test('uninstalling an org-wide install removes the org’s installation', async () => {
    const org = `E${suffix()}`;
    const team = `TW${suffix()}`;
    assert.equal(
      (await installWorkspace(h, { teamId: team, enterpriseId: org, orgWide: true })).status,
      200,
    );
    const key = `slack:${org}:installation`;
    assert.ok(await h.app.store.kv.get(key), 'stored after install');
    // The event's installation (authorizations[0]) names the org and no workspace, as Slack's does.
    const delivery = await h.slack.uninstallApp(team, org);
    assert.equal(delivery.status, 200);
    await until(
      async () => (await h.app.store.kv.get(key)) === undefined,
      'org installation removed',
    );
  });
});

describe('Slack OAuth install (Redis store)', () => {
  let h: Harness;
  let redis: TestRedis;
  before(async () => {
    redis = await startTestRedis();
    h = await startHarness({
      slackOAuth: { encryptionKey: newEncryptionKey() },
      env: { STORE_URL: redis.url },
    });
  });
  after(async () => {
    await h.close();
    await redis.stop();
  });

  test('Redis holds the installation sealed, never the token', async () => {
    const team = `TR${suffix()}`;
    assert.equal((await installWorkspace(h, { teamId: team })).status, 200);
    const ws = h.slack.installedWorkspace(team);
    assert.ok(ws);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = await client.keys(`*${team}*`);
      assert.ok(keys.length >= 1, 'the installation is in Redis');
      for (const k of keys) {
        const value = String(await client.get(k));
        assert.match(value, /tm1\./);
        assert.ok(!value.includes(ws.botToken), `plaintext token under ${k}`);
      }
    } finally {
      await client.quit();
    }
    const { ts } = await h.slack.postUserMessage({
      channel: `CR${suffix()}`,
      user: 'UR1',
      teamId: team,
      text: `<@${ws.botUserId}> hello over redis`,
    });
    const channel = h.slack.allMessages().find((m) => m.ts === ts)?.channel ?? '';
    await waitForReply(h.slack, channel, ts, 'hello over redis');
  });
});
