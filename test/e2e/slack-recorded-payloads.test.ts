// Payloads Slack really sends, recorded in Slack's own SDK test suites (test/fixtures/slack-payloads,
// sources in its ATTRIBUTION.md), replayed signed through the bot's real HTTP endpoint: each is
// acknowledged 2xx inside Slack's 3 s with nothing logged at error on the way (so neither Bolt's
// "not acknowledged" nor a second acknowledgement), and acknowledged while the model has not
// answered yet (the model is held until the acknowledgement is in); mentions and replies in the bot's threads are answered; bot messages,
// edits, other people's chatter and lifecycle events are not, and shared files are read all the
// same; a button, modal, shortcut or command no flow knows is told privately that it is no longer
// active; and the process stays up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { DeliveryResult } from '../emulators/slack/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies } from '../support/slack-helpers.ts';

const DIR = new URL('../fixtures/slack-payloads/', import.meta.url);
const ANSWER = 'From the recorded payloads: yes.';

interface Entry {
  file: string;
  kind: 'event' | 'interactive' | 'command';
  expect: 'answer' | 'silent' | 'ack' | 'inactive' | 'unknown-command';
  replayAs?: 'thread-reply';
  source: { repo: string; path: string };
}

type Json = Record<string, unknown>;
interface Message {
  ts: string;
  channel: string;
  thread_ts?: string;
  subtype?: string;
}

const entries = JSON.parse(readFileSync(new URL('index.json', DIR), 'utf8')) as Entry[];
const load = (file: string) => JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Json;

describe('recorded Slack payloads through the HTTP endpoint', () => {
  let h: Harness;
  /** The bot's warnings and errors, Bolt's included. */
  const logged: string[] = [];
  /** The model answers only once the test lets it: the acknowledgement must not wait for it. */
  let held = Promise.withResolvers<void>();
  /** The last answered thread per Grid org (a reply continues its own workspace's thread). */
  const lastAnswered = new Map<unknown, { channel: string; ts: string }>();

  before(async () => {
    h = await startHarness({ captureLog: { level: 'warn', lines: logged } });
    h.llm.setResponder(async () => {
      await held.promise;
      return { content: ANSWER };
    });
  });
  after(() => h.close());

  /**
   * Answered 2xx inside the emulator's 3 s window (Slack's deadline), so before Bolt's own
   * unhandled-request timer (3001 ms) would have answered 404; and nothing logged an error on
   * the way: not Bolt's "not acknowledged", not a second acknowledgement, not a listener's failure.
   */
  function acknowledged(r: DeliveryResult, what: string, from: number): void {
    assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.error ?? r.body}`);
    const errors = logged
      .slice(from)
      .filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
    assert.deepEqual(errors, [], `${what}: no error logged`);
  }

  /** A response_url post that arrives after `seen` others, with its text. */
  async function toldPrivately(seen: number): Promise<string> {
    const post = await h.slack.waitFor(() => h.slack.responses().slice(seen)[0]);
    assert.equal(post.body.response_type ?? 'ephemeral', 'ephemeral');
    return String(post.body.text ?? '');
  }

  for (const e of entries) {
    test(`${e.file} (${e.source.repo}: ${e.source.path}) → ${e.expect}`, async () => {
      const body = load(e.file);
      const event = body.event as (Message & Json) | undefined;
      if (e.replayAs === 'thread-reply' && event) {
        const root = lastAnswered.get(body.enterprise_id);
        assert.ok(root, 'a mention in this workspace was answered before this reply');
        event.channel = root.channel;
        event.thread_ts = root.ts;
      }
      const message = (event ?? (body.message as Message | undefined)) as Message | undefined;
      const channel = event?.channel ?? (body.channel as { id: string } | undefined)?.id ?? '';
      const thread = message ? (message.thread_ts ?? message.ts) : '';
      const replies = () => botReplies(h.slack, channel, thread).filter((m) => !m.streaming);
      const before = replies().length;
      held = Promise.withResolvers<void>();
      const seen = h.slack.responses().length;
      const downloaded = h.slack.fileDownloads().filter((f) => f.outcome === 'bytes').length;
      const logFrom = logged.length;
      const r = await h.slack.replay(e.kind, body);
      acknowledged(r, e.file, logFrom);
      if (body.type === 'url_verification')
        assert.deepEqual(JSON.parse(r.body), { challenge: body.challenge });
      // An options request no menu of this app makes gets an empty list, not an error.
      if (body.type === 'block_suggestion') assert.deepEqual(JSON.parse(r.body), { options: [] });
      if (e.expect === 'answer' && e.kind === 'command') {
        assert.match(await toldPrivately(seen), /reply/i, '/threadmind show tells the settings');
      } else if (e.expect === 'answer') {
        assert.equal(replies().length, before, 'acknowledged before the model answered');
        held.resolve();
        await h.slack.waitFor(() => (replies().length > before ? true : undefined));
        if (e.kind === 'event') lastAnswered.set(body.enterprise_id, { channel, ts: thread });
      } else if (e.expect === 'silent' && event) {
        held.resolve();
        await h.handled(event.ts);
        assert.equal(replies().length, before, 'nothing posted in reply');
      } else if (e.expect === 'inactive') {
        assert.equal(await toldPrivately(seen), 'This button is no longer active.');
      } else if (e.expect === 'unknown-command') {
        assert.match(await toldPrivately(seen), /^I do not know the command \//);
      }
      // A shared file is read into its thread or channel, answered or not, with the bot's token.
      const shared = Array.isArray(event?.files) ? (event.files as unknown[]).length : 0;
      if (shared > 0) {
        const fetched = () => h.slack.fileDownloads().filter((f) => f.outcome === 'bytes');
        await h.slack.waitFor(() => (fetched().length >= downloaded + shared ? true : undefined));
        assert.ok(fetched().every((f) => f.authorized));
      }
      held.resolve();
      acknowledged(r, e.file, logFrom);
    });
  }

  test('the process is still up and serving after every recording', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.port}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      logged.filter((l) => /not acknowledged/.test(l)),
      [],
      'Bolt never gave up waiting for an acknowledgement',
    );
  });
});
