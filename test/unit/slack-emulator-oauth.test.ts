// The Slack emulator's OAuth v2 install flow, checked with Slack's own WebClient: codes work once
// and only with the app's credentials, each workspace gets its own bot, a token sees only its own
// workspace's channels, and revoked tokens answer token_revoked.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebClient } from '@slack/web-api';
import { startSlackEmulator } from '../emulators/slack/index.ts';

const REDIRECT = 'http://127.0.0.1:9/slack/oauth_redirect';

function authorizeUrl(apiUrl: string, clientId: string, state: string): string {
  const u = new URL('../oauth/v2/authorize', apiUrl);
  u.search = new URLSearchParams({ client_id: clientId, scope: 'chat:write', state }).toString();
  return u.href;
}

test('oauth.v2.access exchanges a code once, with the app’s credentials only', async (t) => {
  const emu = await startSlackEmulator({ signingSecret: 's' });
  t.after(() => emu.close());
  const web = new WebClient(undefined, { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } });
  const { redirectUrl, code } = emu.approveInstall(
    authorizeUrl(emu.apiUrl, emu.oauthClient.id, 'st4te'),
    { teamId: 'T0OAUTH01', redirectUri: REDIRECT },
  );
  const back = new URL(redirectUrl);
  assert.equal(back.searchParams.get('state'), 'st4te', 'the app’s state comes back');
  assert.equal(back.searchParams.get('code'), code);
  await assert.rejects(
    web.oauth.v2.access({ client_id: emu.oauthClient.id, client_secret: 'wrong', code }),
    /bad_client_secret/,
  );
  const res = await web.oauth.v2.access({
    client_id: emu.oauthClient.id,
    client_secret: emu.oauthClient.secret,
    code,
  });
  assert.equal(res.team?.id, 'T0OAUTH01');
  assert.equal(res.token_type, 'bot');
  assert.match(String(res.access_token), /^xoxb-/);
  await assert.rejects(
    web.oauth.v2.access({
      client_id: emu.oauthClient.id,
      client_secret: emu.oauthClient.secret,
      code,
    }),
    /invalid_code/,
    'a code works once',
  );
  const auth = await web.auth.test({ token: String(res.access_token) });
  assert.equal(auth.team_id, 'T0OAUTH01');
  assert.equal(auth.user_id, res.bot_user_id, 'the workspace’s own bot user');
  assert.throws(
    () => emu.approveInstall(authorizeUrl(emu.apiUrl, 'not-the-app', 's'), { teamId: 'T1' }),
    /invalid_client_id/,
  );
});

test('a workspace token sees only its workspace; revoked tokens answer token_revoked', async (t) => {
  const emu = await startSlackEmulator({ signingSecret: 's' });
  t.after(() => emu.close());
  const web = new WebClient(undefined, { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } });
  const install = async (teamId: string) => {
    const { code } = emu.approveInstall(authorizeUrl(emu.apiUrl, emu.oauthClient.id, 'x'), {
      teamId,
      redirectUri: REDIRECT,
    });
    const res = await web.oauth.v2.access({
      client_id: emu.oauthClient.id,
      client_secret: emu.oauthClient.secret,
      code,
    });
    return String(res.access_token);
  };
  // People's messages are delivered to an app that acknowledges them; only the channels' owners matter here.
  const app = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => app.close(() => r())));
  emu.setEventsUrl(`http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`);
  const tokenA = await install('T0OAUTHA1');
  const tokenB = await install('T0OAUTHB1');
  await emu.postUserMessage({ channel: 'CAONLY', user: 'U1', teamId: 'T0OAUTHA1', text: 'hi' });
  await emu.postUserMessage({ channel: 'CBONLY', user: 'U2', teamId: 'T0OAUTHB1', text: 'hi' });
  const ok = await web.chat.postMessage({ token: tokenA, channel: 'CAONLY', text: 'from A' });
  assert.equal(ok.ok, true);
  assert.equal(emu.callsTo('chat.postMessage').at(-1)?.teamId, 'T0OAUTHA1');
  await assert.rejects(
    web.chat.postMessage({ token: tokenA, channel: 'CBONLY', text: 'A in B' }),
    /channel_not_found/,
  );
  const revoked = await web.auth.revoke({ token: tokenB });
  assert.equal((revoked as { revoked?: boolean }).revoked, true);
  await assert.rejects(web.auth.test({ token: tokenB }), /token_revoked/);
  assert.equal(emu.installedWorkspace('T0OAUTHB1'), undefined);
  assert.ok(emu.installedWorkspace('T0OAUTHA1'));
});
