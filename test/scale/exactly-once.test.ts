// Issue 24's exactly-once tests, with real processes (one ingress, two workers, one private Redis)
// against the Slack and model emulators:
// - a worker frozen (SIGSTOP) past its job lock: another takes the job and answers; thawed
//   (SIGCONT), the stale run's writes are refused at the port and counted;
// - a worker killed right after it kept the turn's history, before it marked the job done: the
//   next run finds the write-once marker, so history holds the turn once and the thread one answer;
// - a message whose job kills its worker four times: the thread gets the failure message and
//   goes on.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { createStore } from '../../src/compose/create-store.ts';
import { messages } from '../../src/core/messages.ts';
import { SessionHistory } from '../../src/store/session-history.ts';
import type { Store } from '../../src/store/store.ts';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import type { SlackEmulator } from '../emulators/slack/index.ts';
import type { BotProcess, LogLine } from '../support/cluster.ts';
import { type SlackClusterRig, startClusterRig } from '../support/cluster-rig.ts';
import type { TestRedis } from '../support/redis-server.ts';
import { lastQuestionTag, taggedAnswer } from './tagged-answers.ts';

const QUEUE = `exactly-once-${process.pid}`;

let rig: SlackClusterRig;
let redis: TestRedis;
let llm: OpenAIEmulator;
let slack: SlackEmulator;
let store: Store;
let env: Record<string, string>;
let procs: BotProcess[] = [];
let spawned = 0;

function spawnWorker(): BotProcess {
  return rig.spawn('worker', `worker-${spawned++}`, env);
}

/** Its HTTP port, once it listens (slow on a loaded machine: several processes start at once). */
async function ready(p: BotProcess): Promise<number> {
  return Number((await p.waitLog((l) => l.msg === 'http server listening', 240_000)).port);
}

const liveWorkers = () => procs.filter((p) => p.role === 'worker' && p.alive);

before(async () => {
  rig = await startClusterRig({
    signingSecret: 'exactly-once-secret',
    dirPrefix: 'tm-exactly-once-',
    discord: false,
  });
  ({ redis, llm, slack, procs } = rig);
  store = await createStore(redis.url);
  // Answers stream slowly enough to freeze or kill a worker in the middle of one; the poisoned
  // message's never ends before its worker is killed.
  llm.setResponder((body) => ({
    ...taggedAnswer(body),
    chunkDelayMs: lastQuestionTag(body) === 'q-poison' ? 2000 : 60,
  }));
  env = rig.env(`store: { lockTtlSeconds: 2 }
server: { shutdownGraceMs: 3000 }
slack: { updateIntervalMs: 100, maxRetries: 2 }
doctor: { onStart: 'off' }
scale:
  ingressDrainMs: 0
  queue: { name: ${QUEUE}, lockMs: 2000, orderPollMs: 50, backoffMs: 3000, concurrency: 2, crashLimit: 4 }
`);
  const ingress = rig.spawn('ingress', 'ingress-0', env);
  spawnWorker();
  spawnWorker();
  slack.setEventsUrls([`http://127.0.0.1:${await ready(ingress)}/slack/events`]);
  await Promise.all(procs.map(ready));
});

after(async () => {
  for (const p of procs) if (p.alive) p.child.kill('SIGCONT');
  await Promise.all(procs.map((p) => p.kill9()));
  await store?.close();
  await rig?.close();
});

function botMessages(channel: string, ts: string) {
  return slack.messages(channel, ts).filter((m) => m.bot_id !== undefined);
}

/** The vote block under an answer: Slack's feedback buttons, or plain ones. */
function hasVotes(m: { blocks?: unknown[] } | undefined): boolean {
  return ((m?.blocks ?? []) as { type?: string }[]).some(
    (b) =>
      b.type === 'context_actions' || (b.type === 'actions' && JSON.stringify(b).includes('tm:up')),
  );
}

function completeAnswers(channel: string, ts: string, tag: string) {
  return botMessages(channel, ts).filter((m) => m.text.includes(`END-${tag}`));
}

/**
 * From now on: the first live worker (one started later included) that starts the turn of Slack
 * message `ts`, with the session it logged.
 */
function watchStarts(): (ts: string) => Promise<{ w: BotProcess; session: string }> {
  const marks = new Map(procs.map((p) => [p, p.lines.length]));
  return (ts) =>
    until(async () => {
      for (const w of liveWorkers()) {
        const line = w.lines
          .slice(marks.get(w) ?? 0)
          .find((l: LogLine) => l.msg === 'turn started' && String(l.session).endsWith(`:${ts}`));
        if (line) return { w, session: String(line.session) };
      }
      return undefined;
    }, `a worker starting the turn of ${ts}`);
}

async function fencedWrites(w: BotProcess): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${await ready(w)}/metrics`);
  const text = await res.text();
  return [...text.matchAll(/^threadmind_fenced_writes_total\{[^}]*\} (\d+)$/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ask(channel: string, tag: string) {
  const { ts } = await slack.postUserMessage({
    channel,
    user: 'U1',
    text: `${tag} please answer`,
    mention: true,
  });
  return ts;
}

test('a worker frozen past its job lock: one answer, and its stale writes refused and counted', {
  timeout: 120_000,
}, async () => {
  const channel = 'C0STALL';
  const starts = watchStarts();
  const ts = await ask(channel, 'q-stall');
  const { w: frozen } = await starts(ts);
  await slack.waitFor(
    () => botMessages(channel, ts).some((m) => m.text.includes('word1')) || undefined,
    30_000,
  );
  frozen.child.kill('SIGSTOP');
  try {
    // The other worker takes the job once the frozen one's lock lapses, and answers in full.
    await slack.waitFor(
      () => completeAnswers(channel, ts, 'q-stall').length > 0 || undefined,
      60_000,
    );
  } finally {
    frozen.child.kill('SIGCONT');
  }
  await frozen.waitLog((l) => l.msg === 'a newer run of this job holds it; this run stops here');
  assert.ok((await fencedWrites(frozen)) > 0, 'the stale run tried to write and was refused');
  const bot = botMessages(channel, ts);
  assert.equal(completeAnswers(channel, ts, 'q-stall').length, 1, 'one complete answer');
  assert.ok(
    bot.some((m) => m.text.includes(messages.answerContinues)),
    'the cut-off message says the answer follows',
  );
  for (const m of bot) {
    assert.ok(!m.text.includes(messages.lockLost), `no word from the stale run: ${m.text}`);
    assert.ok(m.text.split('END-q-stall').length <= 2, 'nothing appended twice');
  }
});

test('killed between keeping the history and marking the job done: the turn is kept once', {
  timeout: 120_000,
}, async () => {
  const channel = 'C0CRASH';
  while (liveWorkers().length < 2) await ready(spawnWorker());
  // The kill comes the moment the history write's marker lands (keyspace notifications). So that
  // the worker cannot mark the job done before the kill reaches it, the session's order record is
  // made unusable while the turn runs (marking done then fails) and put back after the kill.
  const admin = new Redis(redis.url);
  const sub = new Redis(redis.url);
  try {
    await admin.config('SET', 'notify-keyspace-events', 'K$');
    await sub.psubscribe('__keyspace@0__:tm:claim:turn-kept:*');
    let victim: BotProcess | undefined;
    const kept = new Promise<void>((resolve) => {
      sub.on('pmessage', () => {
        if (victim?.alive) victim.child.kill('SIGKILL');
        resolve();
      });
    });
    // Edited messages, not a native stream: the footer (👍/👎) then goes on after the history is
    // kept, so the kill comes before it and the next run places it.
    slack.setStreamingAvailable(false);
    const starts = watchStarts();
    const ts = await ask(channel, 'q-crash');
    const started = await starts(ts);
    victim = started.w;
    const { session } = started;
    const orderKey = `threadmind:${QUEUE}:order:${session}`;
    const order = await admin.hgetall(orderKey);
    await admin.multi().del(orderKey).set(orderKey, 'blocked').exec();
    await kept;
    await victim.exited;
    await admin.multi().del(orderKey).hset(orderKey, order).exec();
    assert.equal(
      Number((await admin.hget(orderKey, 'done')) ?? 0),
      0,
      'killed before the job was marked done',
    );
    spawnWorker();
    // The job runs again on another worker, which finds the turn kept and marks it done.
    await until(
      async () => (Number((await admin.hget(orderKey, 'done')) ?? 0) >= 1 ? true : undefined),
      'the job marked done',
    );
    const history = await new SessionHistory(store, 100).load(session);
    const answers = history.filter((m) => String(m.content).includes('END-q-crash'));
    assert.equal(answers.length, 1, 'history holds the answer once');
    assert.equal(
      history.filter((m) => String(m.content).includes('q-crash please answer')).length,
      1,
      'and the question once',
    );
    const [answer] = completeAnswers(channel, ts, 'q-crash');
    assert.equal(completeAnswers(channel, ts, 'q-crash').length, 1, 'one answer in the thread');
    const votes = await slack.waitFor(() => hasVotes(botMessages(channel, ts).at(-1)) || undefined);
    assert.ok(votes, 'the answer has its 👍/👎');
    assert.equal(botMessages(channel, ts).at(-1)?.ts, answer?.ts, 'under the answer');
    assert.equal(
      llm.requests.filter(
        (r) => r.path.includes('chat/completions') && lastQuestionTag(r.body) === 'q-crash',
      ).length,
      1,
      'the model was not asked again',
    );
  } finally {
    slack.setStreamingAvailable(true);
    await admin.config('SET', 'notify-keyspace-events', '');
    sub.disconnect();
    admin.disconnect();
  }
});

test('a message whose job kills its worker four times: the thread is told, and goes on', {
  timeout: 240_000,
}, async () => {
  const channel = 'C0POISON';
  while (liveWorkers().length < 2) await ready(spawnWorker());
  let starts = watchStarts();
  const ts = await ask(channel, 'q-poison');
  for (let crash = 1; crash <= 4; crash++) {
    const { w } = await starts(ts);
    starts = watchStarts();
    await w.kill9();
    spawnWorker();
  }
  await slack.waitFor(
    () => botMessages(channel, ts).some((m) => m.text.includes(messages.queuedFailed)) || undefined,
    60_000,
  );
  assert.equal(completeAnswers(channel, ts, 'q-poison').length, 0);
  // The thread goes on: the next message is answered.
  const { ts: next } = await slack.postUserMessage({
    channel,
    thread_ts: ts,
    user: 'U1',
    text: 'q-after-poison and now?',
    mention: true,
  });
  assert.ok(next);
  await slack.waitFor(
    () => completeAnswers(channel, ts, 'q-after-poison').length > 0 || undefined,
    60_000,
  );
});
