// The emulated Slack and model server, and the load generator, in a child process of their own:
// in production they are other machines, and apart they leave the bot's process doing the bot's
// work only, so that process's CPU time (process.cpuUsage) is the bot's alone.
// Every time here is epoch milliseconds with sub-millisecond precision (performance clock).

import type { WebMessage } from '../adapters/web/web-messages.ts';
import { startOpenAIEmulator } from '../test/emulators/openai/index.ts';
import { type ApiCall, startSlackEmulator } from '../test/emulators/slack/index.ts';
import { WebChatClient } from '../test/support/web-client.ts';
import { FLOOR_MARK } from './bare-bolt.ts';
import { SIGNING_SECRET } from './emulator-secret.ts';
import { type LoopDelay, loopDelay } from './loop-delay.ts';
import { PageClient } from './page-client.ts';

const now = (): number => performance.timeOrigin + performance.now();

const llm = await startOpenAIEmulator();
const slack = await startSlackEmulator({ signingSecret: SIGNING_SECRET });
let reply = { content: 'ok', chunkDelayMs: 0 };
llm.setResponder(() => reply);

/** Resolves per channel when Slack records the answer's stream as closed. */
const closing = new Map<string, (at: number) => void>();
// Seen as each call is recorded rather than by polling, so the end time is not a timer's tick.
const record = slack.calls.push.bind(slack.calls);
slack.calls.push = (...items: ApiCall[]): number => {
  const at = now();
  for (const c of items) {
    const floor = c.method === 'chat.postMessage' && String(c.args.text).startsWith(FLOOR_MARK);
    if ((c.method !== 'chat.stopStream' && !floor) || !c.ok) continue;
    const done = closing.get(String(c.args.channel));
    closing.delete(String(c.args.channel));
    done?.(at);
  }
  return record(...items);
};

let seq = 0;
/** The channel (Slack) or thread (web) of a turn also marks its model requests: it is in the question's text. */
const MARK = /\bturn-([\w-]+)/;

export interface LoopSpec {
  /** Turns kept in flight: a worker starts its next turn as soon as its last one's stream closes. */
  concurrency: number;
  /** Turns measured; the loop keeps going until all of them have finished. */
  measured: number;
  /** Worker i starts i × staggerMs after the first, so the turns do not move in lockstep. */
  staggerMs: number;
}

/** One turn, as a person starts it: `closed` resolves when they see the whole answer. */
type StartTurn = (
  worker: number,
) => Promise<{ channel: string; sentAt: number; closed: Promise<number> }>;

/** Slack: a mention in a fresh channel; the answer is whole when Slack records chat.stopStream. */
const slackTurn: StartTurn = async (worker) => {
  const channel = `C${seq++}`;
  const closed = new Promise<number>((resolve) => closing.set(channel, resolve));
  const sentAt = now();
  await slack.postUserMessage({ channel, user: `U${worker}`, text: question(channel) });
  return { channel, sentAt, closed };
};

/**
 * The web chat: a new thread followed on its event stream (as the page does), then the question;
 * the answer is whole when the page has applied the finished bot message. `fetch`: the tests'
 * client (fetch and web streams, the figures so far); `page`: node:http (bench/page-client.ts),
 * half the load generator's CPU.
 */
function webTurn(base: string, client: 'page' | 'fetch' = 'fetch'): StartTurn {
  if (client === 'fetch') return fetchWebTurn(base);
  const page = new PageClient(base);
  const answered = (ms: WebMessage[]) =>
    ms.some((m) => m.author === 'bot' && !m.streaming && m.text !== '');
  return async () => {
    const { thread } = await page.json<{ thread: { id: string } }>('/api/threads', 'POST');
    const view = await page.watch(thread.id);
    const sentAt = now();
    await page.json(`/api/threads/${thread.id}/messages`, 'POST', {
      text: `turn-${thread.id}: please answer in about twenty words`,
    });
    return { channel: thread.id, sentAt, closed: view.until(answered, now, 60_000) };
  };
}

function fetchWebTurn(base: string): StartTurn {
  const client = new WebChatClient(base);
  return async () => {
    const thread = await client.createThread();
    const view = await client.watch(thread.id);
    const sentAt = now();
    await client.send(thread.id, `turn-${thread.id}: please answer in about twenty words`);
    const closed = view
      .until(
        () =>
          view.messages().some((m) => m.author === 'bot' && !m.streaming && m.text !== '') && now(),
        'the answer',
        60_000,
      )
      .finally(() => view.close());
    return { channel: thread.id, sentAt, closed };
  };
}

export interface TurnSample {
  channel: string;
  /** The signed event sent to the bot. */
  sentAt: number;
  /** Slack recorded chat.stopStream for the answer. */
  closedAt: number;
  /** This turn's model requests, each from its arrival at the emulator to its last byte. */
  model: { receivedAt: number; lastByteAt: number | undefined }[];
  /** Turns in flight (sent, stream not yet closed) when this one started and when it ended. */
  inFlightAtStart: number;
  inFlightAtEnd: number;
}

export interface LoopResult {
  samples: TurnSample[];
  /** Every turn the loop ran: measured, warming up and keeping the count up at the end. */
  turns: number;
  /** From the first measured turn's start to the last measured turn's end. */
  window: { from: number; to: number };
  /**
   * Share of the loop's wall time this process's main thread was busy (event-loop utilization):
   * near 1, the emulators themselves are the bottleneck and their delays land in the overhead.
   */
  emulatorBusy: number;
  /** This process's event-loop delay over the loop: what the emulators and the client waited. */
  loopDelay: LoopDelay;
}

function question(channel: string): string {
  return `<@${slack.botUserId}> turn-${channel}: please answer in about twenty words`;
}

/**
 * A closed loop. A turn is measured when it starts after every worker has started and after as
 * many turns as there are workers have finished (the queue has filled), and no worker stops until
 * every measured turn is over: each measured turn has exactly `concurrency` turns in flight.
 */
async function closedLoop(spec: LoopSpec, start: StartTurn = slackTurn): Promise<LoopResult> {
  const fromRequest = llm.requests.length;
  const elu0 = performance.eventLoopUtilization();
  const delay = loopDelay();
  let inFlight = 0;
  let started = 0;
  let finished = 0;
  let workersUp = 0;
  let measuring = 0;
  let stop = false;
  const samples: TurnSample[] = [];
  let from = Number.POSITIVE_INFINITY;
  let to = 0;

  const turn = async (worker: number): Promise<void> => {
    inFlight++;
    started++;
    const measured =
      workersUp === spec.concurrency && finished >= spec.concurrency && measuring < spec.measured;
    if (measured) measuring++;
    const inFlightAtStart = inFlight;
    const { channel, sentAt, closed } = await start(worker);
    const closedAt = await closed;
    const inFlightAtEnd = inFlight;
    inFlight--;
    finished++;
    if (!measured) return;
    from = Math.min(from, sentAt);
    to = Math.max(to, closedAt);
    samples.push({ channel, sentAt, closedAt, model: [], inFlightAtStart, inFlightAtEnd });
    if (samples.length === spec.measured) stop = true;
  };

  await Promise.all(
    Array.from({ length: spec.concurrency }, async (_, worker) => {
      await new Promise((r) => setTimeout(r, worker * spec.staggerMs));
      workersUp++;
      while (!stop) await turn(worker);
    }),
  );

  const emulatorBusy = performance.eventLoopUtilization(elu0).utilization;
  const emulatorDelay = delay.stop();
  const byChannel = new Map(samples.map((s) => [s.channel, s]));
  for (const r of llm.requests.slice(fromRequest)) {
    const lastUser = (r.body?.messages as { role?: string; content?: unknown }[] | undefined)
      ?.filter((m) => m.role === 'user')
      .at(-1);
    const content = lastUser?.content;
    const text = typeof content === 'string' ? content : JSON.stringify(content ?? '');
    const channel = MARK.exec(text)?.[1];
    const s = channel === undefined ? undefined : byChannel.get(channel);
    s?.model.push({ receivedAt: r.receivedAt, lastByteAt: r.lastByteAt });
  }
  return {
    samples,
    turns: started,
    window: { from, to },
    emulatorBusy,
    loopDelay: emulatorDelay,
  };
}

export interface BurstResult {
  /** Every event's signed request → HTTP 200, in ms (a mention is two events). */
  acks: number[];
  /** Events not answered 200. */
  refused: number;
  /** Mentions whose answer closed within the deadline. */
  answered: number;
  /** From the first event sent to each answer's close, in ms (answered mentions only). */
  answers: number[];
}

/** `n` mentions, each in a fresh channel, sent at once; then waits for every answer. */
async function burst(n: number): Promise<BurstResult> {
  const t0 = now();
  const sent = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const channel = `C${seq++}`;
      const closed = new Promise<number>((resolve) => closing.set(channel, resolve));
      const { deliveries } = await slack.postUserMessage({
        channel,
        user: `U${i}`,
        text: question(channel),
      });
      return { deliveries, closed };
    }),
  );
  const deadline = new Promise<'late'>((r) => setTimeout(() => r('late'), 120_000).unref());
  const ends = await Promise.all(sent.map((s) => Promise.race([s.closed, deadline])));
  const deliveries = sent.flatMap((s) => s.deliveries);
  return {
    acks: deliveries.filter((d) => d.status === 200).map((d) => d.elapsedMs),
    refused: deliveries.filter((d) => d.status !== 200).length,
    answered: ends.filter((e) => e !== 'late').length,
    answers: ends.filter((e): e is number => e !== 'late').map((e) => e - t0),
  };
}

type Request =
  | { id: number; op: 'setEventsUrl'; url: string }
  | { id: number; op: 'setReply'; content: string; chunkDelayMs: number }
  | ({ id: number; op: 'loop' } & LoopSpec)
  | ({ id: number; op: 'webLoop'; base: string; client?: 'page' | 'fetch' } & LoopSpec)
  | { id: number; op: 'fire'; n: number }
  | { id: number; op: 'burst'; n: number }
  | { id: number; op: 'acks'; n: number }
  | { id: number; op: 'callCounts'; since: number }
  | { id: number; op: 'modelTime'; since: number }
  | { id: number; op: 'close' };

async function handle(req: Request): Promise<unknown> {
  switch (req.op) {
    case 'setEventsUrl':
      slack.setEventsUrl(req.url);
      return null;
    case 'setReply':
      reply = { content: req.content, chunkDelayMs: req.chunkDelayMs };
      return null;
    case 'loop':
      return closedLoop(req);
    case 'webLoop':
      return closedLoop(req, webTurn(req.base, req.client));
    case 'fire':
      await Promise.all(
        Array.from({ length: req.n }, (_, i) =>
          slack.postUserMessage({
            channel: `C${seq++}`,
            user: `U${i}`,
            text: `<@${slack.botUserId}> long job`,
          }),
        ),
      );
      return null;
    case 'burst':
      return burst(req.n);
    case 'acks': {
      const times: number[] = [];
      for (let i = 0; i < req.n; i++) {
        const ts = `1800000000.${String(i).padStart(6, '0')}`;
        const res = await slack.deliverEvent({
          type: 'message',
          channel: `Cack${i % 10}`,
          channel_type: 'channel',
          user: 'U77',
          text: 'chatter in a thread the bot is not in',
          ts,
          thread_ts: '1700000000.000001',
        });
        if (res.status !== 200) throw new Error(`ack answered ${res.status}`);
        times.push(res.elapsedMs);
      }
      return times;
    }
    case 'callCounts': {
      // Web API calls by method from the `since`-th on, and the model requests with them.
      const counts: Record<string, number> = {};
      for (const c of slack.calls.slice(req.since)) counts[c.method] = (counts[c.method] ?? 0) + 1;
      return { counts, total: slack.calls.length, modelRequests: llm.requests.length };
    }
    case 'modelTime':
      // Model requests from the `since`-th on, each from arrival to its last byte, summed.
      return llm.requests
        .slice(req.since)
        .reduce((t, r) => t + ((r.lastByteAt ?? r.receivedAt) - r.receivedAt), 0);
    case 'close':
      await slack.close();
      await llm.close();
      setImmediate(() => process.disconnect?.());
      return null;
  }
}

process.on('message', (req: Request) => {
  handle(req).then(
    (result) => process.send?.({ id: req.id, result }),
    (err: unknown) =>
      process.send?.({ id: req.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
process.send?.({
  ready: { llmBaseURL: llm.baseURL, slackApiUrl: slack.apiUrl, botToken: slack.botToken },
});
