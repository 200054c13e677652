// The Slack emulator's conversation reading, edits, slash commands and modals, checked against
// Slack's own clients (WebClient, SocketModeClient, an unmodified Bolt app) and a bare receiver
// that verifies Slack's request signature itself.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mock, test } from 'node:test';
import { App, LogLevel } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import { WebClient } from '@slack/web-api';
import {
  DEFAULT_CHANNEL_CREATOR,
  type SlackEmulator,
  shownText,
  startSlackEmulator,
  viewState,
} from '../emulators/slack/index.ts';

const SECRET = 'emulator-tests-secret';

/** One turn of the event loop (a real one: tests that mock timers leave setImmediate alone). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Moves the mocked clock on in small steps, letting sockets and promises run, until `done`. */
async function runClock(done: () => boolean, stepMs = 10, maxMs = 60_000): Promise<void> {
  for (let t = 0; !done(); t += stepMs) {
    assert.ok(t < maxMs, `still waiting after ${maxMs} ms of mocked time`);
    mock.timers.tick(stepMs);
    await turn();
  }
}

type Cleanup = (fn: () => Promise<unknown>) => void;

function cleanups(t: { after: (fn: () => Promise<void>) => void }): Cleanup {
  const stack: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const fn of stack.reverse()) await fn();
  });
  return (fn) => stack.push(fn);
}

async function emulator(defer: Cleanup, apiLatencyMs?: number): Promise<SlackEmulator> {
  const emu = await startSlackEmulator({
    signingSecret: SECRET,
    ...(apiLatencyMs === undefined ? {} : { apiLatencyMs }),
  });
  defer(() => emu.close());
  return emu;
}

// Refusals are the point of some tests: keep WebClient from printing them.
const quiet = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

function client(emu: SlackEmulator, retries = 0): WebClient {
  return new WebClient(emu.botToken, {
    slackApiUrl: emu.apiUrl,
    retryConfig: { retries, factor: 1, minTimeout: 10, maxTimeout: 20 },
    logger: quiet,
  });
}

interface Received {
  contentType: string;
  body: string;
  verified: boolean;
}

/**
 * A bare app endpoint: checks the v0 signature over the raw body and answers with
 * `answer(request)` (a JSON object, or nothing for an empty 200).
 */
async function receiver(
  defer: Cleanup,
  answer: (r: Received) => Promise<unknown> | unknown = () => undefined,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-slack-request-timestamp']);
      const expected = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      const got = String(req.headers['x-slack-signature']);
      const verified =
        Math.abs(Date.now() / 1000 - Number(ts)) < 300 &&
        got.length === expected.length &&
        timingSafeEqual(Buffer.from(got), Buffer.from(expected));
      const r = { contentType: String(req.headers['content-type']), body, verified };
      received.push(r);
      if (!verified) {
        res.writeHead(401).end();
        return;
      }
      const out = await answer(r);
      if (out === undefined) res.writeHead(200).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
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

function envelopeEvent(r: Received): Record<string, unknown> {
  return (JSON.parse(r.body) as { event: Record<string, unknown> }).event;
}

test('conversations.history: newest first, thread parents summarised, cursor pages', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const rx = await receiver(defer);
  emu.setEventsUrl(rx.url);
  const posted: string[] = [];
  for (let i = 0; i < 25; i++) {
    const { ts } = await emu.postUserMessage({ channel: 'C1', user: `U${i % 3}X`, text: `m${i}` });
    posted.push(ts);
  }
  const parent = posted[5] ?? '';
  await emu.postUserMessage({ channel: 'C1', user: 'U1X', text: 'reply', thread_ts: parent });
  const { ts: broadcast } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U2X',
    text: 'also to channel',
    thread_ts: parent,
    broadcast: true,
  });
  const web = client(emu);

  const first = await web.conversations.history({ channel: 'C1', limit: 10 });
  assert.equal(first.has_more, true);
  const texts = (first.messages ?? []).map((m) => m.text ?? '');
  assert.deepEqual(texts.slice(0, 3), ['also to channel', 'm24', 'm23']);
  assert.equal(first.messages?.[0]?.subtype, 'thread_broadcast');
  const cursor = first.response_metadata?.next_cursor ?? '';
  assert.match(Buffer.from(cursor, 'base64').toString(), /^next_ts:\d+$/);

  const pages: string[] = [...texts];
  let next = cursor;
  while (next !== '') {
    const page = await web.conversations.history({ channel: 'C1', limit: 10, cursor: next });
    pages.push(...(page.messages ?? []).map((m) => m.text ?? ''));
    next = page.has_more === true ? (page.response_metadata?.next_cursor ?? '') : '';
  }
  // 25 top-level + the broadcast; the plain reply stays in its thread.
  assert.equal(pages.length, 26);
  assert.ok(!pages.includes('reply'));
  assert.equal(pages.at(-1), 'm0');

  const all = await web.conversations.history({ channel: 'C1', limit: 999 });
  const p = all.messages?.find((m) => m.ts === parent);
  assert.equal(p?.reply_count, 2);
  assert.equal(p?.thread_ts, parent);
  assert.equal(p?.latest_reply, broadcast);
  assert.deepEqual(p?.reply_users, ['U1X', 'U2X']);

  // latest/oldest bound the window; inclusive keeps the bounds.
  const window = await web.conversations.history({
    channel: 'C1',
    oldest: posted[10] ?? '',
    latest: posted[12] ?? '',
  });
  assert.deepEqual(
    window.messages?.map((m) => m.text),
    ['m11'],
  );
  const inclusive = await web.conversations.history({
    channel: 'C1',
    oldest: posted[10] ?? '',
    latest: posted[12] ?? '',
    inclusive: true,
  });
  assert.deepEqual(
    inclusive.messages?.map((m) => m.text),
    ['m12', 'm11', 'm10'],
  );
  assert.equal(inclusive.has_more, false);
  await assert.rejects(
    web.conversations.history({ channel: 'C1', cursor: 'bogus' }),
    /invalid_cursor/,
  );
});

test('latency applies to every call, calls are counted by method, 429s carry Retry-After', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer, 50);
  const rx = await receiver(defer);
  emu.setEventsUrl(rx.url);
  const { ts } = await emu.postUserMessage({ channel: 'C1', user: 'U1', text: 'root' });
  const web = client(emu);
  // The latency is the emulator's timer: on a mocked clock the answer waits until the clock has
  // moved by it, however fast or slow the machine is.
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let answered = false;
    const replies = web.conversations.replies({ channel: 'C1', ts }).then((r) => {
      answered = true;
      return r;
    });
    while (emu.callsTo('conversations.replies').length === 0) await turn();
    await turn();
    mock.timers.tick(49);
    await turn();
    assert.equal(answered, false, 'held for the latency');
    mock.timers.tick(1);
    assert.equal((await replies).ok, true, 'answered once the latency has passed');
  } finally {
    mock.timers.reset();
  }
  emu.setApiLatencyMs(0);

  for (const method of ['conversations.history', 'conversations.replies', 'users.info']) {
    emu.failNext(method, { error: 'ratelimited', retryAfterSec: 2 });
    const res = await fetch(`${emu.apiUrl}${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.botToken}` },
      body: new URLSearchParams({ channel: 'C1', ts, user: 'U1' }),
    });
    assert.equal(res.status, 429, method);
    assert.equal(res.headers.get('retry-after'), '2', method);
    assert.equal(((await res.json()) as { error: string }).error, 'ratelimited');
  }
  // WebClient waits Retry-After and retries on its own. Its wait is a timer: on a mocked clock
  // (the emulator stamps calls with it) the gap is exactly what the client waited, whatever the
  // machine's speed.
  emu.failNext('users.info', { error: 'ratelimited', retryAfterSec: 1 });
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    const info = client(emu, 1).users.info({ user: 'U1' });
    await runClock(() => emu.callsTo('users.info').length >= 3);
    assert.equal((await info).ok, true);
    const [, limited, retried] = emu.callsTo('users.info');
    const gap = (retried?.at ?? 0) - (limited?.at ?? 0);
    assert.ok(gap >= 1000, `retried ${gap} ms (mocked clock) after the 429, not after Retry-After`);
  } finally {
    mock.timers.reset();
  }
  assert.equal(emu.callsTo('users.info').length, 3);
  assert.equal(emu.callsTo('conversations.replies').length, 2);
  const scopes = await fetch(`${emu.apiUrl}auth.test`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.botToken}` },
  });
  for (const scope of [
    'channels:history',
    'groups:history',
    'users:read',
    'commands',
    'im:write',
  ]) {
    assert.ok(scopes.headers.get('x-oauth-scopes')?.split(',').includes(scope), scope);
  }
});

test('users.info and conversations.info carry what the test set', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  emu.setUser('U0MINA', {
    is_admin: true,
    real_name: 'Mina Park',
    profile: { display_name: 'mina' },
  });
  emu.setUser('U0MINA', { is_owner: true });
  const { user } = await web.users.info({ user: 'U0MINA' });
  assert.equal(user?.is_admin, true);
  assert.equal(user?.is_owner, true);
  assert.equal(user?.real_name, 'Mina Park');
  assert.equal(user?.profile?.real_name, 'Mina Park');
  assert.equal(user?.profile?.display_name, 'mina');
  assert.equal((await web.users.info({ user: 'U0OTHER' })).user?.is_admin, false);

  assert.equal(
    (await web.conversations.info({ channel: 'C1' })).channel?.creator,
    DEFAULT_CHANNEL_CREATOR,
  );
  emu.setChannelCreator('C1', 'U0MINA');
  assert.equal((await web.conversations.info({ channel: 'C1' })).channel?.creator, 'U0MINA');
});

test('edits and deletions arrive as message_changed / message_deleted like Slack sends them', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const rx = await receiver(defer);
  emu.setEventsUrl(rx.url);
  const { ts: root } = await emu.postUserMessage({ channel: 'C1', user: 'U1', text: 'root' });
  const { ts: reply } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U2',
    text: 'retry limit is 3',
    thread_ts: root,
  });

  const edit = await emu.editUserMessage({ channel: 'C1', ts: reply, text: 'retry limit is 5' });
  assert.deepEqual(
    edit.deliveries.map((d) => d.status),
    [200],
  );
  const changed = envelopeEvent(rx.received.at(-1) as Received);
  assert.equal(rx.received.at(-1)?.verified, true);
  assert.equal(changed.subtype, 'message_changed');
  assert.equal(changed.hidden, true);
  assert.equal(changed.channel, 'C1');
  assert.equal(changed.channel_type, 'channel');
  assert.equal(changed.ts, edit.eventTs);
  assert.equal(changed.event_ts, edit.eventTs);
  const message = changed.message as Record<string, unknown>;
  assert.equal(message.text, 'retry limit is 5');
  assert.equal(message.ts, reply);
  assert.equal(message.thread_ts, root);
  assert.deepEqual(message.edited, { user: 'U2', ts: edit.eventTs });
  assert.equal((changed.previous_message as Record<string, unknown>).text, 'retry limit is 3');
  const replies = await client(emu).conversations.replies({ channel: 'C1', ts: root });
  assert.equal(replies.messages?.[1]?.text, 'retry limit is 5');
  assert.deepEqual(replies.messages?.[1]?.edited, { user: 'U2', ts: edit.eventTs });

  const del = await emu.deleteUserMessage({ channel: 'C1', ts: reply });
  const deleted = envelopeEvent(rx.received.at(-1) as Received);
  assert.equal(deleted.subtype, 'message_deleted');
  assert.equal(deleted.hidden, true);
  assert.equal(deleted.deleted_ts, reply);
  assert.equal(deleted.ts, del.eventTs);
  assert.equal((deleted.previous_message as Record<string, unknown>).text, 'retry limit is 5');
  assert.equal(emu.messages('C1', root).length, 1);

  // A parent with replies becomes a tombstone; its last reply going takes the tombstone along.
  const { ts: r2 } = await emu.postUserMessage({
    channel: 'C1',
    user: 'U2',
    text: 'x',
    thread_ts: root,
  });
  await emu.deleteUserMessage({ channel: 'C1', ts: root });
  const tomb = envelopeEvent(rx.received.at(-1) as Received);
  assert.equal(tomb.subtype, 'message_changed');
  const tm = tomb.message as Record<string, unknown>;
  assert.deepEqual(
    [tm.subtype, tm.user, tm.text],
    ['tombstone', 'USLACKBOT', 'This message was deleted.'],
  );
  assert.equal((tomb.previous_message as Record<string, unknown>).text, 'root');
  const afterTomb = await client(emu).conversations.history({ channel: 'C1' });
  assert.ok(!afterTomb.messages?.some((m) => m.text === 'root'));
  const last = await emu.deleteUserMessage({ channel: 'C1', ts: r2 });
  assert.equal(last.deliveries.length, 2);
  const gone = envelopeEvent(rx.received.at(-1) as Received);
  assert.deepEqual([gone.subtype, gone.deleted_ts], ['message_deleted', root]);
  assert.deepEqual(emu.messages('C1'), []);
});

test('edits reach a Socket Mode client as message events', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const socket = new SocketModeClient({
    appToken: emu.appToken,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  const subtypes: unknown[] = [];
  socket.on('slack_event', async ({ ack, body }) => {
    subtypes.push(body.event.subtype);
    await ack();
  });
  await socket.start();
  defer(() => socket.disconnect());
  const { ts } = await emu.postUserMessage({ channel: 'D1', user: 'U1', text: 'hello' });
  await emu.editUserMessage({ channel: 'D1', ts, text: 'hello there' });
  await emu.deleteUserMessage({ channel: 'D1', ts });
  assert.deepEqual(subtypes, [undefined, 'message_changed', 'message_deleted']);
});

const MODAL = {
  type: 'modal',
  callback_id: 'settings',
  private_metadata: 'C1',
  title: { type: 'plain_text', text: 'Channel settings' },
  submit: { type: 'plain_text', text: 'Save' },
  blocks: [
    {
      type: 'input',
      block_id: 'mode',
      label: { type: 'plain_text', text: 'Reply mode' },
      element: {
        type: 'static_select',
        action_id: 'value',
        options: ['mention', 'thread', 'all'].map((v) => ({
          text: { type: 'plain_text', text: v },
          value: v,
        })),
      },
    },
    {
      type: 'input',
      block_id: 'persona',
      optional: true,
      label: { type: 'plain_text', text: 'Instructions' },
      element: { type: 'plain_text_input', action_id: 'value', multiline: true },
    },
    {
      type: 'input',
      block_id: 'tools',
      optional: true,
      label: { type: 'plain_text', text: 'Tools' },
      element: {
        type: 'checkboxes',
        action_id: 'value',
        options: ['files', 'images'].map((v) => ({
          text: { type: 'plain_text', text: v },
          value: v,
        })),
      },
    },
  ],
};

test('slash command → views.open → view_submission through a receiver that checks signatures', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  let submissions = 0;
  const rx = await receiver(defer, async (r) => {
    assert.equal(r.contentType, 'application/x-www-form-urlencoded');
    const form = new URLSearchParams(r.body);
    if (form.has('command')) {
      const opened = await web.views.open({
        trigger_id: form.get('trigger_id') ?? '',
        view: MODAL as never,
      });
      assert.equal(opened.ok, true);
      return undefined;
    }
    submissions += 1;
    if (submissions === 1) return { response_action: 'errors', errors: { persona: 'Too long' } };
    return undefined;
  });
  emu.setEventsUrl(rx.url);

  const cmd = await emu.slashCommand({
    command: '/threadmind',
    text: 'settings',
    user: 'U1',
    channel: 'C1',
  });
  assert.equal(cmd.status, 200);
  const form = Object.fromEntries(new URLSearchParams(rx.received[0]?.body ?? ''));
  assert.equal(rx.received[0]?.verified, true);
  assert.deepEqual(Object.keys(form), [
    'token',
    'team_id',
    'team_domain',
    'channel_id',
    'channel_name',
    'user_id',
    'user_name',
    'command',
    'text',
    'api_app_id',
    'is_enterprise_install',
    'response_url',
    'trigger_id',
  ]);
  assert.deepEqual(
    [form.command, form.text, form.user_id, form.channel_id],
    ['/threadmind', 'settings', 'U1', 'C1'],
  );
  assert.equal(form.trigger_id, cmd.triggerId);

  const [view] = emu.openedViews();
  assert.ok(view !== undefined);
  assert.equal(view.userId, 'U1');
  assert.match(view.id, /^V[A-Z0-9]+$/);
  assert.equal(view.view.callback_id, 'settings');
  // Single use, then: exchanged_trigger_id.
  await assert.rejects(
    web.views.open({ trigger_id: cmd.triggerId, view: MODAL as never }),
    /exchanged_trigger_id/,
  );

  const refused = await emu.submitView({
    viewId: view.id,
    user: 'U1',
    values: { mode: { value: 'thread' }, persona: { value: 'x'.repeat(5000) } },
  });
  assert.equal(refused.responseAction, 'errors');
  assert.deepEqual(refused.errors, { persona: 'Too long' });
  assert.equal(emu.openedViews()[0]?.open, true);
  const payload = JSON.parse(
    new URLSearchParams(rx.received.at(-1)?.body ?? '').get('payload') ?? '{}',
  );
  assert.equal(payload.type, 'view_submission');
  assert.deepEqual(payload.user, { id: 'U1', username: 'u1', name: 'u1', team_id: emu.teamId });
  assert.equal(payload.view.private_metadata, 'C1');
  assert.deepEqual(payload.view.state.values.mode.value, {
    type: 'static_select',
    selected_option: { text: { type: 'plain_text', text: 'thread', emoji: true }, value: 'thread' },
  });
  // Inputs left empty are still listed, empty.
  assert.deepEqual(payload.view.state.values.tools.value, {
    type: 'checkboxes',
    selected_options: [],
  });

  const saved = await emu.submitView({
    viewId: view.id,
    user: 'U1',
    values: {
      mode: { value: 'all' },
      persona: { value: viewState.text('be brief') },
      tools: { value: ['files'] },
    },
  });
  assert.equal(saved.status, 200);
  assert.equal(saved.responseAction, undefined);
  assert.equal(emu.openedViews()[0]?.open, false);
  await assert.rejects(
    emu.submitView({ viewId: view.id, user: 'U1', values: { mode: { value: 'all' } } }),
    /no open view/,
  );
});

test('views.open checks the trigger and the view like Slack', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  await assert.rejects(
    web.views.open({ trigger_id: '1.2.3', view: MODAL as never }),
    /invalid_trigger_id/,
  );
  emu.setTriggerLifetimeMs(20);
  const stale = emu.newTriggerId('U1');
  await new Promise((r) => setTimeout(r, 40));
  await assert.rejects(
    web.views.open({ trigger_id: stale, view: MODAL as never }),
    /expired_trigger_id/,
  );
  emu.setTriggerLifetimeMs(3000);
  const tooMany = { ...MODAL, blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) };
  const err = await web.views
    .open({ trigger_id: emu.newTriggerId('U1'), view: tooMany as never })
    .then(
      () => undefined,
      (e: { data?: { error?: string; response_metadata?: { messages?: string[] } } }) => e.data,
    );
  assert.equal(err?.error, 'invalid_arguments');
  assert.match(err?.response_metadata?.messages?.join() ?? '', /blocks/);
  const big = { ...MODAL, private_metadata: 'x'.repeat(3001) };
  await assert.rejects(
    web.views.open({ trigger_id: emu.newTriggerId('U1'), view: big as never }),
    /invalid_arguments/,
  );

  const opened = await web.views.open({ trigger_id: emu.newTriggerId('U1'), view: MODAL as never });
  const id = opened.view?.id ?? '';
  const updated = await web.views.update({
    view_id: id,
    hash: opened.view?.hash ?? '',
    view: { ...MODAL, title: { type: 'plain_text', text: 'Saved' } } as never,
  });
  assert.equal(updated.view?.title?.text, 'Saved');
  await assert.rejects(
    web.views.update({ view_id: id, hash: opened.view?.hash ?? '', view: MODAL as never }),
    /hash_conflict/,
  );
  await assert.rejects(web.views.update({ view_id: 'VNOPE', view: MODAL as never }), /not_found/);
  assert.equal(emu.openedViews()[0]?.updates, 1);
});

test('an unmodified Bolt app over HTTP: command ack, respond(), views.open, view ack errors', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = new App({
    token: emu.botToken,
    signingSecret: SECRET,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  app.command('/threadmind', async ({ command, ack, client: web, respond }) => {
    if (command.text === 'settings') {
      await ack();
      await web.views.open({ trigger_id: command.trigger_id, view: MODAL as never });
      return;
    }
    if (command.text === 'show') {
      await ack();
      await respond({ response_type: 'ephemeral', text: 'reply mode: thread' });
      return;
    }
    await ack({ text: 'Only admins can change settings.' });
  });
  app.view('settings', async ({ ack, view }) => {
    const mode = view.state.values.mode?.value?.selected_option?.value;
    if (mode === 'all') await ack({ response_action: 'errors', errors: { mode: 'not here' } });
    else await ack();
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as http.Server;
  defer(() => app.stop());
  emu.setEventsUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);

  const refused = await emu.slashCommand({
    command: '/threadmind',
    text: 'set',
    user: 'U9',
    channel: 'C1',
  });
  assert.equal(refused.status, 200);
  assert.equal(refused.json?.text, 'Only admins can change settings.');
  const show = await emu.slashCommand({
    command: '/threadmind',
    text: 'show',
    user: 'U1',
    channel: 'C1',
  });
  await emu.waitFor(() => emu.responses().length === 1);
  assert.equal(emu.responses()[0]?.url, show.responseUrl);
  assert.equal(emu.responses()[0]?.status, 200);
  assert.deepEqual(
    emu.ephemeralMessages().map((e) => [e.source, e.user, e.text]),
    [
      ['ack', 'U9', 'Only admins can change settings.'],
      ['response_url', 'U1', 'reply mode: thread'],
    ],
  );

  await emu.slashCommand({ command: '/threadmind', text: 'settings', user: 'U1', channel: 'C1' });
  const view = await emu.waitFor(() => emu.openedViews()[0]);
  const bad = await emu.submitView({
    viewId: view.id,
    user: 'U1',
    values: { mode: { value: 'all' } },
  });
  assert.deepEqual(bad.errors, { mode: 'not here' });
  const good = await emu.submitView({
    viewId: view.id,
    user: 'U1',
    values: { mode: { value: 'mention' } },
  });
  assert.equal(good.status, 200);
  assert.equal(emu.openedViews()[0]?.open, false);
});

test('an unmodified Bolt app in Socket Mode gets slash_commands and interactive envelopes', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const app = new App({
    token: emu.botToken,
    appToken: emu.appToken,
    socketMode: true,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: emu.apiUrl, retryConfig: { retries: 0 } },
  });
  app.command('/threadmind', async ({ command, ack, client: web }) => {
    await ack();
    await web.views.open({ trigger_id: command.trigger_id, view: MODAL as never });
    await web.chat.postEphemeral({
      channel: command.channel_id,
      user: command.user_id,
      text: 'opening…',
    });
  });
  app.view('settings', async ({ ack }) => {
    await ack({ response_action: 'errors', errors: { mode: 'pick one' } });
  });
  await app.start();
  defer(() => app.stop());
  const cmd = await emu.slashCommand({ command: '/threadmind', user: 'U1', channel: 'C1' });
  assert.equal(cmd.status, 200);
  const view = await emu.waitFor(() => emu.openedViews()[0]);
  const res = await emu.submitView({
    viewId: view.id,
    user: 'U1',
    values: { mode: { value: 'thread' } },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.errors, { mode: 'pick one' });
  const eph = await emu.waitFor(() => emu.ephemeralMessages()[0]);
  assert.deepEqual(
    [eph.source, eph.channel, eph.user, eph.text],
    ['chat.postEphemeral', 'C1', 'U1', 'opening…'],
  );
  assert.match(eph.message_ts ?? '', /^\d+\.\d{6}$/);
});

test('task cards: documented shape accepted, a non-web source or a workspace without them refused', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  const card = (url: string) => ({
    type: 'task_card',
    task_id: 'sources',
    title: 'Sources',
    status: 'complete',
    sources: [{ type: 'url', url, text: 'plan.pdf' }],
  });
  const post = (blocks: unknown[]) =>
    web.chat.postMessage({ channel: 'C1', text: 'answer', blocks: blocks as never });
  assert.equal((await post([card('https://files.example/plan.pdf')])).ok, true);
  await assert.rejects(post([card('kb://runbook')]), /invalid_blocks/);
  await assert.rejects(post([{ type: 'task_card', title: 'no id' }]), /invalid_blocks/);
  emu.setTaskCardsAvailable(false);
  await assert.rejects(post([card('https://files.example/plan.pdf')]), /invalid_blocks/);
});

test('markdown blocks: shown as written, 12,000 characters per payload, messages only', async (t) => {
  const defer = cleanups(t);
  const emu = await emulator(defer);
  const web = client(emu);
  const md = (text: string) => ({ type: 'markdown', text });
  const post = (blocks: unknown[]) =>
    web.chat.postMessage({ channel: 'C1', text: 'fallback', blocks: blocks as never });
  const res = await post([md('**bold** and a [link](https://example.com)')]);
  const posted = emu.allMessages().find((m) => m.ts === res.ts);
  assert.ok(posted);
  assert.equal(shownText(posted), '**bold** and a [link](https://example.com)');
  assert.equal(posted.text, 'fallback');
  assert.equal((await post([md('x'.repeat(6000)), md('y'.repeat(6000))])).ok, true);
  await assert.rejects(post([md('x'.repeat(6000)), md('y'.repeat(6001))]), /invalid_blocks/);
  await assert.rejects(post([md('')]), /invalid_blocks/);
  await assert.rejects(
    web.chat.update({ channel: 'C1', ts: res.ts ?? '', blocks: [md('z'.repeat(12_001))] as never }),
    /invalid_blocks/,
  );
  const inModal = { ...MODAL, blocks: [md('**not here**')] };
  await assert.rejects(
    web.views.open({ trigger_id: emu.newTriggerId('U1'), view: inModal as never }),
    /invalid_arguments/,
  );
});
