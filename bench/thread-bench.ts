// What reading the thread costs a turn, with the Slack emulator answering every Web API call after
// 50 ms (Slack's own latency is of that order). Two bots measured in the same run, one with thread
// reading (threadContext.enabled) and one without (the bot before it could read threads), the
// same scenarios on each:
//   - the first mention in a thread 200 people's messages long (3 authors);
//   - a follow-up with nothing posted since the bot's last answer;
//   - a follow-up after two messages between people (naming each other, so the bot leaves them).
// Per sample: from posting the message to the first answer text reaching Slack (chat.startStream
// at the emulator), and the Web API calls the turn made to read (conversations.replies/history,
// users.info). Every figure is a median or maximum over its samples, per scenario and bot.
import { startHarness } from '../test/support/harness.ts';
import { fmt, summary } from './stats.ts';

const LATENCY_MS = 50;
const THREAD_LENGTH = 200;
const THREADS = 6;
const READS = ['conversations.replies', 'conversations.history', 'users.info'];
const PEOPLE = ['U0BENCHAA1', 'U0BENCHBB2', 'U0BENCHCC3'];

interface Sample {
  firstTextMs: number;
  reads: number;
}

async function bot(read: boolean) {
  const h = await startHarness({
    overrides: {
      threadContext: { enabled: read },
      doctor: { onStart: 'off' },
      slack: { streaming: 'auto' },
    },
  });
  h.llm.setResponder(() => ({ content: 'a short answer' }));
  h.slack.setApiLatencyMs(LATENCY_MS);
  let channels = 0;

  /** Posts `text` and waits for the turn; the sample is measured on the emulators' clocks. */
  const ask = async (channel: string, thread: string | undefined, text: string) => {
    const calls = h.slack.calls.length;
    const t0 = Date.now();
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel,
      user: PEOPLE[0] ?? '',
      text,
      ...(thread ? { thread_ts: thread } : {}),
    });
    await h.handled(ts, deliveries.length, 60_000);
    const made = h.slack.calls.slice(calls);
    const first = made.find(
      (c) => c.method === 'chat.startStream' || c.method === 'chat.postMessage',
    );
    if (!first) throw new Error('the bot posted no answer');
    return {
      ts,
      sample: {
        firstTextMs: first.at - t0,
        reads: made.filter((c) => READS.includes(c.method)).length,
      } satisfies Sample,
    };
  };

  const run = async () => {
    const firstMention: Sample[] = [];
    const quiet: Sample[] = [];
    const busy: Sample[] = [];
    for (let t = 0; t < THREADS; t++) {
      channels += 1;
      const channel = `CB${String(channels).padStart(8, '0')}`;
      // The discussion is posted without latency: only the bot's own calls are slowed.
      h.slack.setApiLatencyMs(0);
      const root = await h.slack.postUserMessage({
        channel,
        user: PEOPLE[1] ?? '',
        text: 'kickoff',
      });
      for (let i = 1; i < THREAD_LENGTH; i++) {
        await h.slack.postUserMessage({
          channel,
          user: PEOPLE[i % 3] ?? '',
          thread_ts: root.ts,
          text: `message ${i} about the retry limit and the rollout plan`,
        });
      }
      h.slack.setApiLatencyMs(LATENCY_MS);
      const mention = await ask(channel, root.ts, `<@${h.slack.botUserId}> what did we decide?`);
      firstMention.push(mention.sample);
      quiet.push((await ask(channel, root.ts, 'and the deadline?')).sample);
      h.slack.setApiLatencyMs(0);
      for (const [who, other] of [
        [PEOPLE[1], PEOPLE[2]],
        [PEOPLE[2], PEOPLE[1]],
      ])
        await h.slack.postUserMessage({
          channel,
          user: who ?? '',
          thread_ts: root.ts,
          text: `<@${other}> I think it is 5`,
        });
      h.slack.setApiLatencyMs(LATENCY_MS);
      busy.push((await ask(channel, root.ts, 'so which is it?')).sample);
    }
    return { firstMention, quiet, busy };
  };
  return { run, close: () => h.close() };
}

function line(label: string, withRead: Sample[], without: Sample[]): string[] {
  const a = summary(withRead.map((s) => s.firstTextMs));
  const b = summary(without.map((s) => s.firstTextMs));
  const reads = summary(withRead.map((s) => s.reads));
  return [
    `${label}: post → first answer text at Slack, reading the thread (n=${a.n}): p50 ${fmt(a.p50)}, max ${fmt(a.max)}; not reading (n=${b.n}): p50 ${fmt(b.p50)}, max ${fmt(b.max)}; extra p50 ${fmt(a.p50 - b.p50)}`,
    `${label}: Web API read calls per turn (replies/history/users.info), reading the thread: p50 ${reads.p50}, max ${reads.max}`,
  ];
}

export async function benchThread(): Promise<string[]> {
  const reading = await bot(true);
  const withRead = await reading.run().finally(() => reading.close());
  const plain = await bot(false);
  const without = await plain.run().finally(() => plain.close());
  return [
    `Slack Web API latency ${LATENCY_MS} ms per call; ${THREADS} threads of ${THREAD_LENGTH} messages by 3 people`,
    ...line('first mention in a 200-message thread', withRead.firstMention, without.firstMention),
    ...line('follow-up, nothing posted since the last answer', withRead.quiet, without.quiet),
    ...line('follow-up after 2 messages between people', withRead.busy, without.busy),
  ];
}
