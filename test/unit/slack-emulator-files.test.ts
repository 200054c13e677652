// The Slack emulator's files: files.info through the real WebClient, url_private downloads with
// plain fetch (auth, Slack's sign-in page, redirects, faults) and file_share events as a signed
// Events API endpoint receives them.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { LogLevel, WebClient } from '@slack/web-api';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';

const SECRET = 'test-signing-secret';
const PDF = new TextEncoder().encode('%PDF-1.7\nnot really a pdf, but bytes all the same\n%%EOF\n');

interface TestCtx {
  after: (fn: () => Promise<void>) => void;
}

async function emulator(t: TestCtx): Promise<SlackEmulator> {
  const emu = await startSlackEmulator({ signingSecret: SECRET });
  t.after(() => emu.close());
  return emu;
}

function client(emu: SlackEmulator, token = emu.botToken): WebClient {
  return new WebClient(token, {
    slackApiUrl: emu.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

function bearer(emu: SlackEmulator): RequestInit {
  return { headers: { authorization: `Bearer ${emu.botToken}` } };
}

async function apiError(p: Promise<unknown>): Promise<string | undefined> {
  const err = (await p.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  )) as { data?: { error?: string } };
  return err.data?.error;
}

type Event = Record<string, unknown> & { type: string; files?: Array<Record<string, unknown>> };

/** An Events API endpoint that only accepts what carries a valid Slack signature. */
async function receiver(t: TestCtx): Promise<{ url: string; events: Event[] }> {
  const events: Event[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-slack-request-timestamp']);
      const expected = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      if (req.headers['x-slack-signature'] !== expected) {
        res.writeHead(401).end();
        return;
      }
      events.push((JSON.parse(body) as { event: Event }).event);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, events };
}

test('files.info answers for uploaded files with the bot token only', async (t) => {
  const emu = await emulator(t);
  const f = emu.uploadFile({ name: 'report.pdf', bytes: PDF, user: 'U1' });
  assert.match(f.id, /^F[A-Z0-9]{10}$/);
  assert.equal(
    f.url_private,
    `${new URL(emu.apiUrl).origin}/files-pri/${emu.teamId}-${f.id}/report.pdf`,
  );
  assert.equal(f.url_private_download, f.url_private.replace(f.id, `${f.id}/download`));
  const { file } = await client(emu).files.info({ file: f.id });
  assert.deepEqual(file, f);
  assert.equal(file?.mimetype, 'application/pdf');
  assert.equal(file?.filetype, 'pdf');
  assert.equal(file?.pretty_type, 'PDF');
  assert.equal(file?.size, PDF.byteLength);
  assert.equal(file?.mode, 'hosted');
  assert.equal(file?.is_external, false);
  assert.deepEqual([file?.channels, file?.groups, file?.ims], [[], [], []]);
  assert.equal(await apiError(client(emu).files.info({ file: 'F0NOPE' })), 'file_not_found');
  const asApp = client(emu, emu.appToken).files.info({ file: f.id });
  assert.equal(await apiError(asApp), 'not_allowed_token_type');
  const wrong = client(emu, 'xoxb-not-the-bot').files.info({ file: f.id });
  assert.equal(await apiError(wrong), 'invalid_auth');
});

test('downloads need the bot token; without it Slack serves its sign-in page with 200', async (t) => {
  const emu = await emulator(t);
  const f = emu.uploadFile({ name: 'report.pdf', bytes: PDF });
  const ok = await fetch(f.url_private_download, bearer(emu));
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('content-type'), 'application/pdf');
  assert.match(String(ok.headers.get('content-disposition')), /^attachment; filename="report.pdf"/);
  assert.deepEqual(new Uint8Array(await ok.arrayBuffer()), PDF);
  const inline = await fetch(f.url_private, bearer(emu));
  assert.deepEqual(new Uint8Array(await inline.arrayBuffer()), PDF);

  // Slack redirects to the workspace's sign-in page; a following client ends on a 200 HTML page.
  for (const init of [{}, { headers: { authorization: 'Bearer xoxb-wrong' } }]) {
    const page = await fetch(f.url_private_download, init);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await page.text(), /^<!DOCTYPE html>[\s\S]*Sign in/);
    assert.match(page.url, /\/\?redir=%2Ffiles-pri%2F/);
  }
  const manual = await fetch(f.url_private_download, { redirect: 'manual' });
  assert.equal(manual.status, 302);
  assert.match(String(manual.headers.get('location')), /\/\?redir=/);
  await manual.body?.cancel();

  assert.deepEqual(
    emu.fileDownloads().map((d) => [d.fileId, d.authorized, d.hop, d.outcome]),
    [
      [f.id, true, 'url', 'bytes'],
      [f.id, true, 'url', 'bytes'],
      [f.id, false, 'url', 'sign_in'],
      [f.id, false, 'url', 'sign_in'],
      [f.id, false, 'url', 'sign_in'],
    ],
  );
});

test('a same-origin redirect keeps the Authorization header and still requires it', async (t) => {
  const emu = await emulator(t);
  const f = emu.uploadFile({ name: 'notes.txt', bytes: PDF, redirect: 'same-origin' });
  const res = await fetch(f.url_private_download, bearer(emu));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain');
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PDF);
  assert.equal(new URL(res.url).origin, new URL(f.url_private).origin);
  assert.notEqual(res.url, f.url_private_download);

  const edge = await fetch(res.url);
  assert.match(await edge.text(), /Sign in/, 'the redirect target wants the token too');
  assert.deepEqual(
    emu.fileDownloads().map((d) => [d.authorized, d.hop, d.outcome]),
    [
      [true, 'url', 'redirect'],
      [true, 'edge', 'bytes'],
      [false, 'edge', 'sign_in'],
    ],
  );
  assert.deepEqual(emu.otherOriginAuthHeaders(), []);
});

test("an other-origin redirect: Node's fetch drops Authorization, the emulator shows what arrived", async (t) => {
  const emu = await emulator(t);
  const f = emu.uploadFile({ name: 'chart.png', bytes: PDF, redirect: 'other-origin' });
  const res = await fetch(f.url_private, bearer(emu));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PDF);
  assert.notEqual(new URL(res.url).origin, new URL(f.url_private).origin);
  // Undici follows the fetch spec: a cross-origin redirect strips Authorization (and Cookie).
  assert.deepEqual(emu.otherOriginAuthHeaders(), [undefined]);

  // A client that re-sends the header by hand after a manual redirect leaks the token; seen.
  const hop = await fetch(f.url_private, { ...bearer(emu), redirect: 'manual' });
  const location = String(hop.headers.get('location'));
  await hop.body?.cancel();
  await (await fetch(location, bearer(emu))).arrayBuffer();
  assert.deepEqual(emu.otherOriginAuthHeaders(), [undefined, `Bearer ${emu.botToken}`]);
  assert.deepEqual(
    emu.fileDownloads().map((d) => [d.authorized, d.hop, d.outcome]),
    [
      [true, 'url', 'redirect'],
      [false, 'other-origin', 'bytes'],
      [true, 'url', 'redirect'],
      [true, 'other-origin', 'bytes'],
    ],
  );
});

test('download faults: HTTP 500, a reset mid-body, a 10 s trickle; limited by times', async (t) => {
  const emu = await emulator(t);
  const f = emu.uploadFile({ name: 'big.pdf', bytes: new Uint8Array(64 * 1024).fill(7) });
  emu.setFileDownloadFault(f.id, 'http500', 1);
  const failed = await fetch(f.url_private_download, bearer(emu));
  assert.equal(failed.status, 500);
  await failed.body?.cancel();
  assert.equal((await fetch(f.url_private_download, bearer(emu))).status, 200);

  emu.setFileDownloadFault(f.id, 'reset');
  const cut = await fetch(f.url_private_download, bearer(emu));
  assert.equal(cut.status, 200, 'headers arrive before the reset');
  await assert.rejects(cut.arrayBuffer());

  emu.setFileDownloadFault(f.id, 'slow');
  const slow = await fetch(f.url_private_download, {
    ...bearer(emu),
    signal: AbortSignal.timeout(300),
  });
  assert.equal(slow.status, 200);
  // The body stalls after the headers: the client's own deadline ends the download.
  await assert.rejects(slow.arrayBuffer(), { name: 'TimeoutError' });

  emu.setFileDownloadFault(f.id, undefined);
  assert.equal((await (await fetch(f.url_private, bearer(emu))).arrayBuffer()).byteLength, 65536);
  assert.deepEqual(
    emu.fileDownloads().map((d) => d.outcome),
    ['http500', 'bytes', 'reset', 'slow', 'bytes'],
  );
  assert.throws(() => emu.setFileDownloadFault('F0NOPE', 'reset'), /no file F0NOPE/);
});

test('a file posted with a mention arrives as file_share + app_mention, and is shared', async (t) => {
  const emu = await emulator(t);
  const app = await receiver(t);
  emu.setEventsUrl(app.url);
  const f = emu.uploadFile({ name: 'report.pdf', bytes: PDF, user: 'U1' });
  const { ts, deliveries } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U1',
    text: 'summarise this',
    mention: true,
    files: [f],
  });
  assert.deepEqual(
    deliveries.map((d) => d.status),
    [200, 200],
  );
  const message = app.events.find((e) => e.type === 'message');
  const mention = app.events.find((e) => e.type === 'app_mention');
  assert.equal(message?.subtype, 'file_share');
  assert.equal(message?.upload, true);
  assert.equal(message?.channel_type, 'channel');
  assert.equal(message?.ts, ts);
  assert.equal(message?.files?.[0]?.id, f.id);
  assert.equal(message?.files?.[0]?.url_private_download, f.url_private_download);
  assert.equal(message?.files?.[0]?.shares, undefined, 'events leave the share fields out');
  assert.equal(mention?.subtype, undefined);
  assert.deepEqual(mention?.files, message?.files);

  const { file } = await client(emu).files.info({ file: f.id });
  assert.deepEqual(file?.channels, ['C1']);
  assert.equal(file?.is_public, true);
  assert.equal(file?.shares?.public?.C1?.[0]?.ts, ts);
  const replies = await client(emu).conversations.replies({ channel: 'C1', ts });
  assert.equal(replies.messages?.[0]?.files?.[0]?.id, f.id);
  assert.equal(emu.messages('C1')[0]?.files?.[0]?.name, 'report.pdf');
});

test('an app_mention may come without files; a file-only DM has no blocks', async (t) => {
  const emu = await emulator(t);
  const app = await receiver(t);
  emu.setEventsUrl(app.url);
  const f = emu.uploadFile({ name: 'data.csv', bytes: PDF, user: 'U2' });
  await emu.postUserMessage({
    channel: 'C2',
    user: 'U2',
    text: `<@${emu.botUserId}> what is in it?`,
    files: [f],
    mentionWithoutFiles: true,
  });
  const mention = app.events.find((e) => e.type === 'app_mention');
  assert.equal(mention?.files, undefined);
  assert.equal(app.events.find((e) => e.type === 'message')?.files?.length, 1);

  await emu.postUserMessage({ channel: 'D2', user: 'U2', text: '', files: [f] });
  const dm = app.events.at(-1);
  assert.equal(dm?.channel_type, 'im');
  assert.equal(dm?.subtype, 'file_share');
  assert.equal(dm?.blocks, undefined);
  const { file } = await client(emu).files.info({ file: f.id });
  assert.deepEqual([file?.channels, file?.ims], [['C2'], ['D2']]);
  assert.equal(file?.shares?.private?.D2?.[0]?.share_user_id, 'U2');
});
