// The Slack emulator against Slack's own clients: WebClient for the Web API, a signature-checking
// HTTP endpoint for the Events API, SocketModeClient and an unmodified Bolt app for Socket Mode.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { App, LogLevel } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import { ErrorCode, WebClient } from '@slack/web-api';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';

const SECRET = 'test-signing-secret';

type Cleanup = (fn: () => Promise<unknown>) => void;
interface TestCtx {
  after: (fn: () => Promise<void>) => void;
}

/** Cleanups run last-registered first, so clients disconnect before the emulator closes. */
function cleanups(t: TestCtx): Cleanup {
  const stack: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const fn of stack.reverse()) await fn();
  });
  return (fn) => stack.push(fn);
}

async function emulator(defer: Cleanup): Promise<SlackEmulator> {
  const emu = await startSlackEmulator({ signingSecret: SECRET });
  defer(() => emu.close());
  return emu;
}

function client(emu: SlackEmulator, token = emu.botToken): WebClient {
  return new WebClient(token, {
    slackApiUrl: emu.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
}

async function slackError(p: Promise<unknown>): Promise<{ code: string; error?: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code: string; data?: { error?: string } };
    const out: { code: string; error?: string } = { code: e.code };
    if (e.data?.error !== undefined) out.error = e.data.error;
    return out;
  }
  assert.fail('expected the call to fail');
}

interface Received {
  headers: http.IncomingHttpHeaders;
  envelope: { event_id: string; event: Record<string, unknown> } & Record<string, unknown>;
  verified: boolean;
}

/** An app endpoint that checks Slack's signature itself and answers after `delayMs(n)`. */
async function receiver(
  defer: Cleanup,
  delayMs: (n: number) => number = () => 0,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-slack-request-timestamp']);
      const expected = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      const got = String(req.headers['x-slack-signature']);
      const fresh = Math.abs(Date.now() / 1000 - Number(ts)) < 300;
      const verified =
        fresh &&
        got.length === expected.length &&
        timingSafeEqual(Buffer.from(got), Buffer.from(expected));
      received.push({ headers: req.headers, envelope: JSON.parse(body), verified });
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(verified ? 200 : 401).end();
      }, delayMs(received.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    received,
  };
}

test('auth.test identifies the bot and tokens are checked like Slack does', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const auth = await client(emu).auth.test();
  assert.equal(auth.user_id, emu.botUserId);
  assert.equal(auth.bot_id, emu.botId);
  assert.equal(auth.team_id, emu.teamId);
  assert.equal(auth.is_enterprise_install, false);
  assert.deepEqual(await slackError(client(emu, 'xoxb-wrong').auth.test()), {
    code: ErrorCode.PlatformError,
    error: 'invalid_auth',
  });
  assert.equal((await slackError(client(emu, '').auth.test())).error, 'not_authed');
  assert.equal((await slackError(client(emu).apiCall('chat.fly'))).error, 'unknown_method');
  const wrongKind = await slackError(client(emu).apps.connections.open());
  assert.equal(wrongKind.error, 'not_allowed_token_type');
  assert.deepEqual(
    emu.calls.map((c) => [c.method, c.status, c.ok, c.error]),
    [
      ['auth.test', 200, true, undefined],
      ['auth.test', 200, false, 'invalid_auth'],
      ['auth.test', 200, false, 'not_authed'],
      ['chat.fly', 200, false, 'unknown_method'],
      ['apps.connections.open', 200, false, 'not_allowed_token_type'],
    ],
  );
});

test('messages: post, update, delete, reactions and thread reads', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  emu.setEventsUrl((await receiver(defer)).url);
  const { ts: root } = await emu.postUserMessage({ channel: 'C1', user: 'U1', text: 'question' });
  const reply = await web.chat.postMessage({ channel: 'C1', thread_ts: root, text: 'answer' });
  assert.match(String(reply.ts), /^\d{10}\.\d{6}$/);
  assert.ok(Number(reply.ts) > Number(root));
  assert.equal(reply.message?.bot_id, emu.botId);
  assert.equal(reply.message?.user, emu.botUserId);
  assert.equal(
    (await slackError(web.chat.postMessage({ channel: 'C1', text: '' }))).error,
    'no_text',
  );

  await web.chat.update({ channel: 'C1', ts: String(reply.ts), text: 'better answer' });
  const notMine = await slackError(web.chat.update({ channel: 'C1', ts: root, text: 'x' }));
  assert.equal(notMine.error, 'cant_update_message');
  const gone = await slackError(web.chat.update({ channel: 'C1', ts: '1.000001', text: 'x' }));
  assert.equal(gone.error, 'message_not_found');
  await web.reactions.add({ channel: 'C1', timestamp: root, name: 'eyes' });

  const thread = await web.conversations.replies({ channel: 'C1', ts: root });
  assert.deepEqual(
    thread.messages?.map((m) => m.text),
    ['question', 'better answer'],
  );
  assert.equal(thread.messages?.[0]?.reply_count, 1);
  const missing = await slackError(web.conversations.replies({ channel: 'C1', ts: '2.000001' }));
  assert.equal(missing.error, 'thread_not_found');

  const [rootMsg, botMsg] = emu.messages('C1', root);
  assert.equal(botMsg?.edited, true);
  assert.deepEqual(rootMsg?.reactions, [{ name: 'eyes', users: [emu.botUserId], count: 1 }]);
  assert.deepEqual(
    emu.messages('C1').map((m) => m.ts),
    [root],
  );
  await web.chat.delete({ channel: 'C1', ts: String(reply.ts) });
  assert.equal(emu.messages('C1', root).length, 1);
  assert.equal((await slackError(web.files.info({ file: 'F1' }))).error, 'file_not_found');
  assert.equal((await web.conversations.info({ channel: 'D9' })).channel?.is_im, true);
  assert.equal((await web.users.info({ user: emu.botUserId })).user?.is_bot, true);
});

test('a JSON body with a Bearer header works like a form post', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const res = await fetch(`${emu.apiUrl}chat.postMessage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.botToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'C1', blocks: [{ type: 'divider' }], text: 'blocks' }),
  });
  assert.equal(((await res.json()) as { ok: boolean }).ok, true);
  assert.deepEqual(emu.allMessages()[0]?.blocks, [{ type: 'divider' }]);
});

test('a 429 carries Retry-After: a rate-limited error, or a retry when retries are allowed', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  emu.failNext('chat.postMessage', { error: 'ratelimited', status: 429, retryAfterSec: 1 });
  const strict = new WebClient(emu.botToken, {
    slackApiUrl: emu.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
  });
  const err = (await strict.chat.postMessage({ channel: 'C1', text: 'hi' }).catch((e) => e)) as {
    code: string;
    retryAfter: number;
  };
  assert.equal(err.code, ErrorCode.RateLimitedError);
  assert.equal(err.retryAfter, 1);

  emu.failNext('chat.postMessage', { error: 'ratelimited', status: 429, retryAfterSec: 1 });
  const patient = new WebClient(emu.botToken, {
    slackApiUrl: emu.apiUrl,
    retryConfig: { retries: 1, minTimeout: 0, maxTimeout: 0 },
    logLevel: LogLevel.ERROR,
  });
  const ok = await patient.chat.postMessage({ channel: 'C1', text: 'hi' });
  assert.equal(ok.ok, true);
  assert.deepEqual(
    emu.calls.map((c) => [c.status, c.error]),
    [
      [429, 'ratelimited'],
      [429, 'ratelimited'],
      [200, undefined],
    ],
  );
});

test('streams: ChatStreamer round trip, expiry, lifetime and availability', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  const args = { channel: 'C1', thread_ts: '1.000001', recipient_team_id: emu.teamId };
  const streamer = web.chatStream({ ...args, recipient_user_id: 'U1', buffer_size: 4 });
  await streamer.append({ markdown_text: 'Hello' });
  assert.equal(emu.allMessages()[0]?.streaming, true);
  await streamer.append({ markdown_text: ', wor' });
  await streamer.stop({ markdown_text: 'ld!' });
  const [done] = emu.messages('C1', '1.000001');
  assert.equal(done?.text, 'Hello, world!');
  assert.equal(done?.streaming, false);
  const again = await slackError(
    web.chat.appendStream({ channel: 'C1', ts: String(streamer.ts), markdown_text: 'x' }),
  );
  assert.equal(again.error, 'message_not_in_streaming_state');

  const noRecipient = await slackError(web.chat.startStream(args));
  assert.equal(noRecipient.error, 'missing_recipient_user_id');
  const s = await web.chat.startStream({ ...args, recipient_user_id: 'U1' });
  emu.expireStream('C1', String(s.ts));
  const expired = await slackError(web.chat.stopStream({ channel: 'C1', ts: String(s.ts) }));
  assert.equal(expired.error, 'message_not_in_streaming_state');

  emu.setStreamLifetimeMs(30);
  const short = await web.chat.startStream({ ...args, recipient_user_id: 'U1' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const aged = await slackError(
    web.chat.appendStream({ channel: 'C1', ts: String(short.ts), markdown_text: 'late' }),
  );
  assert.equal(aged.error, 'message_not_in_streaming_state');

  emu.setStreamingAvailable(false);
  const off = await slackError(web.chat.startStream({ ...args, recipient_user_id: 'U1' }));
  assert.equal(off.error, 'unknown_method');
});

test('assistant.threads.setStatus works, or is refused for a non-assistant app', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  const status = { channel_id: 'C1', thread_ts: '1.000001', status: 'is thinking...' };
  assert.equal((await web.assistant.threads.setStatus(status)).ok, true);
  emu.setAssistantStatusAvailable(false);
  const refused = await slackError(web.assistant.threads.setStatus(status));
  assert.equal(refused.error, 'missing_scope');
});

test('user messages arrive signed as message + app_mention events (no app_mention in DMs)', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = await receiver(defer);
  emu.setEventsUrl(app.url);
  const { ts, deliveries } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U1',
    text: 'help please',
    mention: true,
  });
  assert.deepEqual(
    deliveries.map((d) => d.status),
    [200, 200],
  );
  const [message, mention] = app.received;
  assert.ok(message?.verified && mention?.verified);
  assert.equal(message?.headers['content-type'], 'application/json');
  assert.notEqual(message?.envelope.event_id, mention?.envelope.event_id);
  assert.equal(message?.envelope.type, 'event_callback');
  assert.equal(message?.envelope.api_app_id, emu.appId);
  assert.deepEqual(message?.envelope.authorizations, [
    {
      enterprise_id: null,
      team_id: emu.teamId,
      user_id: emu.botUserId,
      is_bot: true,
      is_enterprise_install: false,
    },
  ]);
  assert.equal(message?.envelope.event.type, 'message');
  assert.equal(message?.envelope.event.channel_type, 'channel');
  assert.equal(message?.envelope.event.ts, ts);
  assert.equal(mention?.envelope.event.type, 'app_mention');
  assert.equal(mention?.envelope.event.text, `<@${emu.botUserId}> help please`);

  const dm = await emu.postUserMessage({
    channel: 'D1',
    user: 'U1',
    text: `<@${emu.botUserId}> hi`,
  });
  assert.equal(dm.deliveries.length, 1);
  assert.equal(app.received[2]?.envelope.event.channel_type, 'im');

  const forged = await emu.deliverEvent({ type: 'message' }, { badSignature: true });
  const stale = await emu.deliverEvent({ type: 'message' }, { timestampSkewSec: 600 });
  assert.deepEqual([forged.status, stale.status], [401, 401]);
});

test('an unacknowledged event is redelivered with the same event_id and X-Slack-Retry-Num', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = await receiver(defer, (n) => (n <= 2 ? 250 : 0));
  emu.setEventsUrl(app.url);
  const results = await emu.deliverWithRetries(
    { type: 'app_mention', user: 'U1', text: 'hi', channel: 'C1', ts: '1.000001' },
    { eventId: 'Ev0SAME0001', ackTimeoutMs: 100 },
  );
  assert.deepEqual(
    results.map((r) => r.status),
    [0, 0, 200],
  );
  assert.deepEqual(
    app.received.map((r) => [
      r.envelope.event_id,
      r.headers['x-slack-retry-num'],
      r.headers['x-slack-retry-reason'],
    ]),
    [
      ['Ev0SAME0001', undefined, undefined],
      ['Ev0SAME0001', '1', 'http_timeout'],
      ['Ev0SAME0001', '2', 'http_timeout'],
    ],
  );
});

test('Socket Mode: SocketModeClient connects with the app token and acks an event', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const socket = new SocketModeClient({
    appToken: emu.appToken,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  const seen: Array<{ type: string; retry: number }> = [];
  socket.on('slack_event', async ({ ack, body, retry_num }) => {
    seen.push({ type: body.event.type, retry: retry_num });
    if (body.event.type === 'message') await ack();
  });
  await socket.start();
  defer(() => socket.disconnect());

  const { deliveries } = await emu.postUserMessage({ channel: 'D1', user: 'U1', text: 'hello' });
  assert.deepEqual(
    deliveries.map((d) => d.status),
    [200],
  );
  // Not acked: Slack redelivers over the socket with retry_attempt counting up.
  const unacked = await emu.deliverWithRetries({ type: 'reaction_added' }, { ackTimeoutMs: 50 });
  assert.deepEqual(
    unacked.map((d) => d.status),
    [0, 0, 0, 0],
  );
  assert.deepEqual(
    seen.map((s) => `${s.type}#${s.retry}`),
    ['message#0', 'reaction_added#0', 'reaction_added#1', 'reaction_added#2', 'reaction_added#3'],
  );
  const open = emu.calls.find((c) => c.method === 'apps.connections.open');
  assert.equal(open?.ok, true);
});

test('an unmodified Bolt app in Socket Mode answers a mention in its thread', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = new App({
    token: emu.botToken,
    appToken: emu.appToken,
    socketMode: true,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  app.event('app_mention', async ({ event, say }) => {
    await say({ text: `you said: ${event.text}`, thread_ts: event.ts });
  });
  await app.start();
  defer(() => app.stop());
  const { ts } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U1',
    text: 'ping',
    mention: true,
  });
  const reply = await emu.waitFor(() => emu.messages('C1', ts)[1]);
  assert.equal(reply.text, `you said: <@${emu.botUserId}> ping`);
  assert.equal(reply.bot_id, emu.botId);
});

test('an unmodified Bolt app over HTTP verifies the signed events and replies', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = new App({
    token: emu.botToken,
    signingSecret: SECRET,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  app.event('app_mention', async ({ event, say }) => {
    await say({ text: 'on it', thread_ts: event.ts });
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as http.Server;
  defer(() => app.stop());
  emu.setEventsUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
  const { ts, deliveries } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U1',
    text: 'hi',
    mention: true,
  });
  assert.deepEqual(
    deliveries.map((d) => d.status),
    [200, 200],
  );
  assert.equal((await emu.waitFor(() => emu.messages('C1', ts)[1])).text, 'on it');
  const forged = await emu.deliverEvent({ type: 'app_mention' }, { badSignature: true });
  assert.equal(forged.status, 401);
});
