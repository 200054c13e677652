// The OAuth v2 install flow as a person's browser goes through it: /slack/install (302 to Slack's
// authorize page, with the state cookie), approval in a workspace, back to /slack/oauth_redirect
// with the code, the state and the cookie.
import assert from 'node:assert/strict';
import type { ApproveInstallInput } from '../emulators/slack/index.ts';
import type { Harness } from './harness.ts';

export interface InstallOutcome {
  status: number;
  body: string;
  /** The redirect back, for replay tests. */
  redirectUrl: string;
  cookie: string;
}

export async function installWorkspace(
  h: Harness,
  who: Omit<ApproveInstallInput, 'redirectUri'>,
): Promise<InstallOutcome> {
  const base = `http://127.0.0.1:${h.app.port}`;
  const start = await fetch(`${base}/slack/install`, { redirect: 'manual' });
  assert.equal(start.status, 302, 'the install link goes straight to Slack');
  const authorize = start.headers.get('location');
  assert.ok(authorize, 'a Location to Slack');
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.match(cookie, /=/, 'the state cookie is set');
  const { redirectUrl } = h.slack.approveInstall(authorize, {
    ...who,
    redirectUri: `${base}/slack/oauth_redirect`,
  });
  const back = await fetch(redirectUrl, { headers: { cookie }, redirect: 'manual' });
  return { status: back.status, body: await back.text(), redirectUrl, cookie };
}
