// Issue 12's OAuth figures: what opening a workspace's sealed installation costs per event, and
// the time from the OAuth callback to the first answer in the new workspace.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SlackInstallations } from '../adapters/slack/slack-installations.ts';
import { createStore } from '../src/compose/create-store.ts';
import { StoreSealedRecords } from '../src/store/sealed-records.ts';
import { SecretBox } from '../src/util/secret-box.ts';
import { newEncryptionKey, startHarness } from '../test/support/harness.ts';
import { waitForReply } from '../test/support/slack-helpers.ts';
import { installWorkspace } from '../test/support/slack-oauth.ts';
import { summary } from './stats.ts';

const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

async function decryptPerEvent(): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-bench-oauth-'));
  const store = await createStore(`sqlite://${path.join(dir, 'b.db')}`);
  try {
    const box = new SecretBox([randomBytes(32), randomBytes(32)]);
    const installs = new SlackInstallations(new StoreSealedRecords(store, box));
    const teams = Array.from({ length: 200 }, (_, i) => `TBENCH${i}`);
    for (const t of teams) {
      await installs.storeInstallation({
        team: { id: t, name: t },
        enterprise: undefined,
        user: { id: 'U1', token: undefined, scopes: undefined },
        bot: {
          token: `xoxb-${randomBytes(20).toString('hex')}`,
          scopes: ['chat:write'],
          id: 'B1',
          userId: 'U2',
        },
        tokenType: 'bot',
        isEnterpriseInstall: false,
        appId: 'A1',
        authVersion: 'v2',
      });
    }
    const sealed = box.seal(JSON.stringify({ bot: { token: 'xoxb-x'.repeat(10) } }), 'k');
    const open: number[] = [];
    const fetch: number[] = [];
    for (let round = 0; round < 5000; round++) {
      let t = performance.now();
      box.open(sealed, 'k');
      open.push(performance.now() - t);
      const team = teams[round % teams.length] as string;
      t = performance.now();
      await installs.fetchInstallation({
        teamId: team,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      fetch.push(performance.now() - t);
    }
    const o = summary(open.slice(500));
    const f = summary(fetch.slice(500));
    return [
      `token decryption per event (AES-256-GCM open, key cached), n=${o.n}: p50 ${us(o.p50)}, p99 ${us(o.p99)} (target < 100 µs)`,
      `installation lookup per event (SQLite read + open + JSON parse, 200 workspaces), n=${f.n}: p50 ${us(f.p50)}, p99 ${us(f.p99)}`,
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function callbackToFirstAnswer(): Promise<string[]> {
  const h = await startHarness({ slackOAuth: { encryptionKey: newEncryptionKey() } });
  try {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const team = `TFIRST${i}`;
      const started = performance.now();
      const done = await installWorkspace(h, { teamId: team });
      if (done.status !== 200) throw new Error(`install failed: ${done.body}`);
      const ws = h.slack.installedWorkspace(team);
      if (!ws) throw new Error('not installed');
      const { ts } = await h.slack.postUserMessage({
        channel: `CF${i}`,
        user: 'UF1',
        teamId: team,
        text: `<@${ws.botUserId}> first question ${i}`,
      });
      await waitForReply(h.slack, `CF${i}`, ts, `first question ${i}`);
      times.push(performance.now() - started);
    }
    const s = summary(times);
    return [
      `OAuth install (from /slack/install through the callback) to the first answer in the new workspace, in-process emulators, n=${s.n}: p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`,
    ];
  } finally {
    await h.close();
  }
}

export async function benchOAuth(): Promise<string[]> {
  return [...(await decryptPerEvent()), ...(await callbackToFirstAnswer())];
}
