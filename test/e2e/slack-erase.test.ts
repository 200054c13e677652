// `/threadmind erase-workspace` end to end through Bolt and the Slack emulator, on SQLite and on
// Redis: two workspaces each with a conversation, a file, channel settings and a vote; a non-admin
// is refused privately, closing the confirmation erases nothing, a wrong word keeps it open, and
// the admin's confirmation erases workspace A and nothing of workspace B.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@redis/client';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { botReplies, callsTo } from '../support/slack-helpers.ts';
import { commitPending } from '../support/sqlite-committed.ts';

type Req = { messages: { role: string; content: unknown }[] };
type Block = {
  type: string;
  block_id?: string;
  element?: {
    action_id?: string;
    type?: string;
    initial_option?: { value: string };
    initial_options?: { value: string }[];
    initial_value?: string;
  };
};

const ADMIN = 'U0ERADMIN1';
const MEMBER = 'U0ERMEMBR1';
const suffix = () => Math.random().toString(36).slice(2, 8).toUpperCase();

/** "search the files" makes the model call search_attachment; anything else is answered at once. */
function responder(req: Req): ScriptedReply {
  const last = req.messages.at(-1);
  if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
  if (JSON.stringify(last?.content ?? '').includes('search the files'))
    return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'launch code word' } }] };
  return { content: 'Noted.' };
}

for (const backend of ['sqlite', 'redis'] as const) {
  describe(`erasing a Slack workspace (${backend})`, () => {
    let h: Harness;
    let redis: TestRedis | undefined;
    const A = { team: `T0A${suffix()}`, channel: `C0A${suffix()}`, word: 'PELICAN', thread: '' };
    const B = { team: `T0B${suffix()}`, channel: `C0B${suffix()}`, word: 'FLAMINGO', thread: '' };
    type Ws = typeof A;

    before(async () => {
      redis = backend === 'redis' ? await startTestRedis() : undefined;
      h = await startHarness(redis ? { env: { STORE_URL: redis.url } } : {});
      h.slack.setUser(ADMIN, { is_admin: true });
      h.llm.setResponder(responder);
      for (const ws of [A, B]) await fill(ws);
    });
    after(async () => {
      await h.close();
      await redis?.stop();
    });

    /** Every stored key (values and claims) that names the workspace. */
    async function keysOf(team: string): Promise<string[]> {
      if (!redis) {
        commitPending(`${h.dataDir}/threadmind.db`);
        const db = new DatabaseSync(`${h.dataDir}/threadmind.db`, { readOnly: true });
        try {
          const rows = db
            .prepare(
              'SELECT key FROM kv WHERE instr(key, ?) > 0 UNION ALL SELECT key FROM claims WHERE instr(key, ?) > 0',
            )
            .all(team, team) as { key: string }[];
          return rows.map((r) => r.key).sort();
        } finally {
          db.close();
        }
      }
      const client = createClient({ url: redis.url });
      await client.connect();
      try {
        return (await client.keys(`*${team}*`)).sort();
      } finally {
        await client.close();
      }
    }

    async function ephemeralTo(user: string, seen: number, needle?: RegExp) {
      return h.slack.waitFor(() =>
        h.slack
          .ephemeralMessages()
          .slice(seen)
          .find((e) => e.user === user && (needle === undefined || needle.test(e.text))),
      );
    }

    async function command(ws: Ws, user: string, text: string) {
      const seen = h.slack.ephemeralMessages().length;
      const views = h.slack.openedViews().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        user,
        channel: ws.channel,
        teamId: ws.team,
        text,
      });
      return { seen, views };
    }

    async function ask(ws: Ws, text: string, thread?: string) {
      const { ts, deliveries } = await h.slack.postUserMessage({
        channel: ws.channel,
        user: MEMBER,
        teamId: ws.team,
        text: `<@${h.slack.botUserId}> ${text}`,
        ...(thread ? { thread_ts: thread } : {}),
      });
      const done = await h.handled(ts, deliveries.length);
      assert.ok(done.some((d) => d.handled.status === 'turn'));
      const answers = botReplies(h.slack, ws.channel, thread ?? ts).filter((m) => !m.streaming);
      return { ts, answer: answers.at(-1) as SlackMessage };
    }

    async function settingsText(ws: Ws): Promise<string> {
      const { seen } = await command(ws, ADMIN, 'show');
      return (await ephemeralTo(ADMIN, seen)).text;
    }

    async function exportText(ws: Ws): Promise<string> {
      const { seen } = await command(ws, ADMIN, 'feedback export');
      return (await ephemeralTo(ADMIN, seen)).text;
    }

    /**
     * What search_attachment returns in the workspace's conversation. Asked in the thread (which
     * holds no file): a top-level mention would read the channel again, file message included, as
     * on a first mention, since Slack still has it.
     */
    async function search(ws: Ws): Promise<string> {
      const { ts } = await ask(ws, 'search the files for the launch code word', ws.thread);
      const replies = botReplies(h.slack, ws.channel, ws.thread).filter((m) => m.ts > ts);
      return replies.map((m) => m.text).join('\n');
    }

    /** A conversation with a follow-up, a file at the channel's top level, settings and a vote. */
    async function fill(ws: Ws): Promise<void> {
      const file = h.slack.uploadFile({
        name: `notes-${ws.team}.txt`,
        bytes: Buffer.from(`The launch code word is ${ws.word}.\n`),
      });
      const drop = await h.slack.postUserMessage({
        channel: ws.channel,
        user: MEMBER,
        teamId: ws.team,
        text: '',
        files: [file],
      });
      await h.slack.waitFor(() =>
        callsTo(h.slack, 'reactions.add').find(
          (c) => c.args.timestamp === drop.ts && c.args.name === 'white_check_mark',
        ),
      );
      const first = await ask(ws, 'remember that the deploy window is Tuesday');
      ws.thread = first.ts;
      await ask(ws, 'and the freeze starts Friday', first.ts);
      const seen = h.slack.ephemeralMessages().length;
      await h.slack.pressButton({
        channel: ws.channel,
        ts: first.answer.ts,
        user: MEMBER,
        teamId: ws.team,
        actionId: 'tm:vote',
        choice: 'positive',
      });
      await ephemeralTo(MEMBER, seen, /👍/);
      const { views } = await command(ws, ADMIN, '');
      const form = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      const values: Record<string, Record<string, string | string[] | null>> = {};
      for (const b of (form.view.blocks as Block[] | undefined) ?? []) {
        const e = b.element;
        if (!b.block_id || !e?.action_id) continue;
        let v: string | string[] | null =
          e.initial_option?.value ??
          e.initial_value ??
          e.initial_options?.map((o) => o.value) ??
          null;
        if (e.type === 'checkboxes' && v === null) v = [];
        if (b.block_id === 'instructions') v = `Speak like a pirate in ${ws.team}`;
        values[b.block_id] = { [e.action_id]: v };
      }
      const before = h.slack.ephemeralMessages().length;
      await h.slack.submitView({ viewId: form.id, user: ADMIN, teamId: ws.team, values });
      await ephemeralTo(ADMIN, before);
    }

    async function assertIntact(ws: Ws): Promise<void> {
      assert.match(await settingsText(ws), new RegExp(`pirate in ${ws.team}`));
      assert.match(await exportText(ws), /1 vote from this workspace/);
      assert.match(await search(ws), new RegExp(ws.word));
      const keys = await keysOf(ws.team);
      for (const kind of ['history:', 'thread-read:', 'channel-settings:', 'att:channel:'])
        assert.ok(
          keys.some((k) => k.includes(kind)),
          `${kind} for ${ws.team}: ${keys.join(' ')}`,
        );
    }

    test('both workspaces hold their data, each its own', async () => {
      await assertIntact(A);
      await assertIntact(B);
    });

    test('a member is refused privately, and no confirmation opens', async () => {
      const { seen, views } = await command(A, MEMBER, 'erase-workspace');
      const refusal = await ephemeralTo(MEMBER, seen);
      assert.match(refusal.text, /Only workspace admins and owners/);
      assert.equal(h.slack.openedViews().length, views);
      await assertIntact(A);
    });

    test('closing the confirmation, or a wrong word, erases nothing', async () => {
      // Claims that a flow was answered (the settings form's, this confirmation's) expire with it.
      const unclaimed = (ks: string[]) => ks.filter((k) => !k.includes(':flow-taken:'));
      const keys = unclaimed(await keysOf(A.team));
      const { views } = await command(A, ADMIN, 'erase-workspace');
      const modal = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      assert.match(JSON.stringify(modal.view.blocks), /cannot be undone/);
      const wrong = await h.slack.submitView({
        viewId: modal.id,
        user: ADMIN,
        teamId: A.team,
        values: { word: { value: 'erase it' } },
      });
      assert.equal(wrong.responseAction, 'errors');
      assert.match(wrong.errors?.word ?? '', /Type ERASE/);
      const seen = h.slack.ephemeralMessages().length;
      const closed = await h.slack.closeView({ viewId: modal.id, user: ADMIN, teamId: A.team });
      assert.equal(closed.delivered, true);
      // The bot's answer to view_closed: the cancel has been handled.
      assert.match((await ephemeralTo(ADMIN, seen)).text, /Nothing was erased/);
      assert.deepEqual(unclaimed(await keysOf(A.team)), keys);
      await assertIntact(A);
    });

    test("the admin's confirmation erases workspace A and nothing of workspace B", async () => {
      const bKeys = await keysOf(B.team);
      const { views } = await command(A, ADMIN, 'erase-workspace');
      const modal = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      const seen = h.slack.ephemeralMessages().length;
      const r = await h.slack.submitView({
        viewId: modal.id,
        user: ADMIN,
        teamId: A.team,
        values: { word: { value: ' ERASE ' } },
      });
      assert.equal(r.responseAction, undefined);
      const done = await ephemeralTo(ADMIN, seen, /Erased what threadmind stored/);
      assert.match(done.text, /for this workspace: [1-9]\d* conversation records/);

      // What was stored for A is gone: only the erase marker (it expires in a day) and the
      // delivery claims remain (ids only; they expire after store.dedupeTtlSeconds, and erasing
      // them would let a redelivered event be answered twice).
      const left = (await keysOf(A.team)).map((k) => k.replace(/^(tm:claim:|tm:|keyv::)/, ''));
      assert.deepEqual(
        left.filter((k) => !k.startsWith('seen:')),
        [`slack:${A.team}:erased-at`],
      );
      assert.ok(left.some((k) => k.startsWith('seen:')));
      assert.deepEqual(await keysOf(B.team), bKeys, 'workspace B untouched');
      const settings = await settingsText(A);
      assert.ok(!settings.includes('pirate'), settings);
      assert.match(await exportText(A), /No feedback has been given in this workspace yet/);
      const found = await search(A);
      assert.match(found, /TOOL RESULT/);
      assert.ok(!found.includes(A.word), found);
      await assertIntact(B);
    });

    test('a turn that was running when its workspace was erased keeps no history', async () => {
      const C = { team: `T0C${suffix()}`, channel: `C0C${suffix()}`, word: '', thread: '' };
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      h.llm.setResponder(async (req) => {
        if (JSON.stringify(req.messages.at(-1)?.content ?? '').includes('slow question'))
          await gate;
        return responder(req as Req);
      });
      try {
        const asked = h.llm.requests.length;
        const { ts, deliveries } = await h.slack.postUserMessage({
          channel: C.channel,
          user: MEMBER,
          teamId: C.team,
          text: `<@${h.slack.botUserId}> a slow question`,
        });
        // The model has the question: the turn is running.
        await h.slack.waitFor(() => h.llm.requests.length > asked || undefined);
        const { views } = await command(C, ADMIN, 'erase-workspace');
        const modal = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
        const seen = h.slack.ephemeralMessages().length;
        await h.slack.submitView({
          viewId: modal.id,
          user: ADMIN,
          teamId: C.team,
          values: { word: { value: 'ERASE' } },
        });
        await ephemeralTo(ADMIN, seen, /Erased what threadmind stored/);
        release();
        const done = await h.handled(ts, deliveries.length);
        assert.ok(
          done.some((d) => d.handled.status === 'turn'),
          'the person still got an answer',
        );
        const left = await keysOf(C.team);
        for (const kind of ['history:', 'archive:', 'thread-read:', 'participating:'])
          assert.ok(!left.some((k) => k.includes(kind)), `${kind} kept: ${left.join(' ')}`);
      } finally {
        release();
        h.llm.setResponder(responder);
      }
    });
  });
}
