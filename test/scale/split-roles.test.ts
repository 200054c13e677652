// Issue 13's scale-out test, with real processes: 2 ingress, 3 workers and 2 gateways
// (THREADMIND_ROLE) on one private Redis, against the Slack, Discord and model emulators. Slack
// events go to the two ingress processes at random, some twice (Slack's retries); Discord messages
// reach the active gateway. During the run one worker is killed with SIGKILL while it streams an
// answer, and so is the active gateway, in the middle of a batch of Discord messages: the standby
// takes the lease and resumes the dead gateway's session, so Discord replays what it sent since.
// Every message must get exactly one complete answer, in its thread's order, and Redis must hold no
// lock afterwards.
// 150 Slack mentions (each two events: message and app_mention, so 300, plus retries of a third)
// and 100 Discord messages.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import type { DiscordEmulator } from '../emulators/discord/index.ts';
import type { OpenAIEmulator } from '../emulators/openai/index.ts';
import type { SlackEmulator } from '../emulators/slack/index.ts';
import { type BotProcess, connectedGateway } from '../support/cluster.ts';
import { type ClusterRig, startClusterRig } from '../support/cluster-rig.ts';
import type { TestRedis } from '../support/redis-server.ts';
import { askTagged } from './discord-asks.ts';
import { lastQuestionTag, taggedAnswer } from './tagged-answers.ts';

const SLACK_THREADS = 50;
const PER_THREAD = 3;
const DISCORD_BEFORE = 50;
const DISCORD_AFTER = 50;

let rig: ClusterRig;
let redis: TestRedis;
let llm: OpenAIEmulator;
let slack: SlackEmulator;
let discord: DiscordEmulator;
let procs: BotProcess[] = [];

before(async () => {
  rig = await startClusterRig({
    signingSecret: 'cluster-signing-secret',
    dirPrefix: 'tm-cluster-',
  });
  ({ redis, llm, slack, discord, procs } = rig);
  llm.setResponder(taggedAnswer);
  const env = rig.env(`store: { lockTtlSeconds: 3 }
server: { shutdownGraceMs: 8000 }
slack: { updateIntervalMs: 100, maxRetries: 2 }
doctor: { onStart: 'off' }
scale:
  ingressDrainMs: 300
  queue: { name: cluster-${process.pid}, lockMs: 3000, orderPollMs: 50, backoffMs: 200, concurrency: 4 }
  gateway: { leaseMs: 3000, renewMs: 1000, pollMs: 500 }
`);
  for (let i = 0; i < 2; i++) rig.spawn('ingress', `ingress-${i}`, env);
  for (let i = 0; i < 3; i++) rig.spawn('worker', `worker-${i}`, env);
  for (let i = 0; i < 2; i++) rig.spawn('gateway', `gateway-${i}`, env);
  // Seven processes start at once: on a busy machine that takes a while.
  const ports = await Promise.all(
    procs.filter((p) => p.role === 'ingress').map((p) => p.port(120_000)),
  );
  slack.setEventsUrls(ports.map((port) => `http://127.0.0.1:${port}/slack/events`));
  await Promise.all(procs.map((p) => p.port(120_000)));
  await discord.waitFor(() => discord.gatewaySessions().connected === 1, 60_000);
});

after(async () => {
  await rig?.close();
});

/** Whether the active gateway's session is kept in Redis. */
async function savedSession(): Promise<boolean> {
  const client = new Redis(redis.url);
  try {
    return (await client.keys('*gateway-session:discord:*')).length > 0;
  } finally {
    client.disconnect();
  }
}

/** What the queue holds, for a failure's message. */
async function queueState(): Promise<string> {
  const client = new Redis(redis.url);
  try {
    const base = `threadmind:cluster-${process.pid}`;
    const parts: string[] = [];
    for (const list of ['wait', 'active'])
      parts.push(`${list}=${await client.llen(`${base}:${list}`)}`);
    for (const set of ['delayed', 'failed', 'completed'])
      parts.push(`${set}=${await client.zcard(`${base}:${set}`)}`);
    const failed = await client.zrange(`${base}:failed`, 0, 5);
    for (const id of failed)
      parts.push(`failed ${id}: ${await client.hget(`${base}:${id}`, 'failedReason')}`);
    return parts.join(' ');
  } finally {
    client.disconnect();
  }
}

/** The bot's answers in a Slack thread, oldest first, with their question tags. */
function slackAnswers(channel: string, ts: string) {
  return slack
    .messages(channel, ts)
    .filter((m) => m.bot_id !== undefined)
    .map((m) => ({ text: m.text, streaming: m.streaming === true }));
}

function completeTags(texts: string[]): string[] {
  return texts.flatMap((t) => [...t.matchAll(/END-(q[\w-]+)\b/g)].map((m) => m[1] ?? ''));
}

test('2 ingress + 3 workers + 2 gateways: every message answered once, in order, through kill -9', {
  timeout: 240_000,
}, async (t) => {
  const workers = procs.filter((p) => p.role === 'worker');
  // Slack: threads started at once, then their follow-ups interleaved across threads.
  const threads: { channel: string; ts: string; tags: string[] }[] = [];
  await Promise.all(
    Array.from({ length: SLACK_THREADS }, async (_, i) => {
      const channel = `C${String(i).padStart(4, '0')}`;
      const tag = `q-s${i}-0`;
      const { ts } = await slack.postUserMessage({
        channel,
        user: `U${i}`,
        text: `${tag} please answer`,
        mention: true,
      });
      threads[i] = { channel, ts, tags: [tag] };
    }),
  );
  // The first worker that starts a turn is killed while that answer streams.
  const marks = workers.map((w) => w.lines.length);
  const victim = Promise.any(
    workers.map((w, i) =>
      w
        .waitLog((l) => l.msg === 'turn started', 60_000, marks[i])
        .then((l) => ({ w, session: String(l.session) })),
    ),
  );
  const followUps = (async () => {
    for (let k = 1; k < PER_THREAD; k++) {
      await Promise.all(
        threads.map(async (t, i) => {
          const tag = `q-s${i}-${k}`;
          t.tags.push(tag);
          const { ts } = await slack.postUserMessage({
            channel: t.channel,
            thread_ts: t.ts,
            user: `U${i}`,
            text: `${tag} and then?`,
            mention: true,
          });
          // Slack's retry of a missed ack: the same events again, to either ingress.
          if ((i + k) % 3 === 0) await slack.redeliverEvents(ts, { retryNum: 1 });
        }),
      );
    }
  })();
  const { w: killed, session } = await victim;
  const [, , channel, ts] = session.split(':');
  await slack.waitFor(
    () =>
      slack
        .messages(channel ?? '', ts)
        .some((m) => m.bot_id !== undefined && m.streaming === true && m.text.includes('word')),
    30_000,
  );
  await killed.kill9();

  // Discord: mentions at the top level (each starts a thread), then the active gateway dies.
  const discordTags: string[] = [];
  const sendDiscord = async (n: number, phase: string) => {
    for (let i = 0; i < n; i++) {
      const tag = `q-d${phase}${i}`;
      discordTags.push(tag);
      await askTagged(discord, tag);
    }
  };
  const gateways = procs.filter((p) => p.role === 'gateway');
  const active = await connectedGateway(procs);
  const standby = gateways.find((g) => g !== active);
  assert.ok(standby);
  assert.equal(
    standby.lines.some((l) => l.msg === 'discord connected'),
    false,
    'the standby holds no gateway connection',
  );
  // The gateway saved its session (it does every second) before it dies.
  while (!(await savedSession())) await new Promise((r) => setTimeout(r, 100));
  // The active gateway dies in the middle of the batch: the first half is sent, some of it not
  // yet queued, and the second half arrives while no gateway is connected.
  await sendDiscord(DISCORD_BEFORE, 'a');
  const killedAt = Date.now();
  await active.kill9();
  await sendDiscord(DISCORD_AFTER, 'b');
  // The standby takes the lease, connects, and resumes the dead gateway's session.
  const resumed = await standby.waitLog(
    (l) => l.msg === 'previous gateway session resumed and replayed',
    60_000,
  );
  t.diagnostic(
    `gateway takeover after kill -9: ${Date.now() - killedAt} ms, ${String(resumed.replayed)} events replayed (not asserted)`,
  );
  assert.ok(discord.gatewaySessions().resumed >= 1, 'the emulator saw the RESUME');
  await followUps;

  // Slack: every question has exactly one complete answer, in its thread's order.
  await slack
    .waitFor(() => {
      // Complete, and closed: the last words of a stream arrive before its stop.
      const done = threads.every((t) => {
        const answers = slackAnswers(t.channel, t.ts);
        const tags = completeTags(answers.map((a) => a.text));
        return tags.length >= t.tags.length && answers.every((a) => !a.streaming);
      });
      return done || undefined;
    }, 120_000)
    .catch(async (err: unknown) => {
      const missing = threads.flatMap((t) => {
        const got = completeTags(slackAnswers(t.channel, t.ts).map((a) => a.text));
        return t.tags.filter((tag) => !got.includes(tag));
      });
      throw new Error(`unanswered: ${missing.join(', ')}; queue: ${await queueState()}`, {
        cause: err,
      });
    });
  for (const t of threads) {
    const answers = slackAnswers(t.channel, t.ts);
    assert.deepEqual(completeTags(answers.map((a) => a.text)), t.tags, `thread ${t.channel}`);
    assert.deepEqual(
      answers.filter((a) => a.streaming).map((a) => a.text),
      [],
      `no stream left open in ${t.channel}`,
    );
  }
  // The cut-off answer says it continues, and its question was answered again in full.
  const cut = slack
    .messages(channel ?? '', ts)
    .filter((m) => m.bot_id !== undefined && m.text.includes('I was interrupted here'));
  assert.equal(cut.length, 1, 'the answer cut off mid-stream says it continues');
  assert.doesNotMatch(cut[0]?.text ?? '', /END-/, 'and is not a complete answer');

  // Discord: each mention opened one thread holding exactly one complete answer.
  const discordDone = () =>
    discord.threads().flatMap((th) => completeTags(discord.messages(th.id).map((m) => m.content)));
  await discord
    .waitFor(() => discordDone().length >= discordTags.length || undefined, 60_000)
    .catch(async (err: unknown) => {
      const got = discordDone();
      const missing = discordTags.filter((tag) => !got.includes(tag));
      throw new Error(`Discord unanswered: ${missing.join(', ')}; queue: ${await queueState()}`, {
        cause: err,
      });
    });
  const byTag = new Map<string, number>();
  for (const th of discord.threads()) {
    for (const tag of completeTags(discord.messages(th.id).map((m) => m.content)))
      byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
  }
  assert.deepEqual(
    [...byTag.entries()].sort(),
    discordTags.map((t) => [t, 1]).sort(),
    'every Discord message answered exactly once',
  );

  // History was written once, in the thread whose turn was cut off too: one more question there,
  // and its request carries each earlier answer exactly once.
  const cutThread = threads.find((t) => t.channel === channel);
  assert.ok(cutThread, 'the cut-off turn was in a Slack thread of this test');
  const finalTag = `q-final-${cutThread.channel}`;
  await slack.postUserMessage({
    channel: cutThread.channel,
    thread_ts: cutThread.ts,
    user: 'U0',
    text: `${finalTag} one more`,
    mention: true,
  });
  await slack.waitFor(
    () =>
      completeTags(slackAnswers(cutThread.channel, cutThread.ts).map((a) => a.text)).includes(
        finalTag,
      ) || undefined,
    30_000,
  );
  const finalRequest = llm.requests.find((r) => lastQuestionTag(r.body) === finalTag);
  const prompt = JSON.stringify(finalRequest?.body.messages);
  for (const tag of cutThread.tags)
    assert.equal(prompt.split(`END-${tag}`).length - 1, 1, `history holds ${tag}'s answer once`);

  // Graceful stop; then no lock is left in Redis.
  const codes = await Promise.all(procs.filter((p) => p.alive).map((p) => p.stop()));
  assert.deepEqual(
    codes.filter((c) => c !== 0),
    [],
    'every live process stopped cleanly on SIGTERM',
  );
  const client = new Redis(redis.url);
  try {
    // The killed worker's session lock lapsed before its job ran again; the killed gateway's lease
    // before the standby took it; the live processes released theirs on SIGTERM.
    // Held leases only: a lease's generation counter outlives it, so the next token is higher.
    assert.deepEqual(await client.keys('tm:lease:lock:*'), [], 'no orphaned locks');
    assert.deepEqual(await client.keys('tm:lease:*'), [], 'no gateway or job lease left');
    const failed = await client.zcard(`threadmind:cluster-${process.pid}:failed`);
    assert.equal(failed, 0, 'no job failed');
  } finally {
    client.disconnect();
  }
});
