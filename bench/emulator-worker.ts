// The emulators on a thread of their own, so their work does not count as the bot's: Slack and
// the model server are other machines in production.
import { parentPort } from 'node:worker_threads';
import { startOpenAIEmulator } from '../test/emulators/openai/index.ts';
import { startSlackEmulator } from '../test/emulators/slack/index.ts';

import { SIGNING_SECRET } from './emulator-worker-secret.ts';

const llm = await startOpenAIEmulator();
const slack = await startSlackEmulator({ signingSecret: SIGNING_SECRET });
let reply = { content: 'ok', chunkDelayMs: 0 };
llm.setResponder(() => reply);

/** Resolves per channel with the time Slack recorded the answer's stream as closed. */
const waiting = new Map<string, (at: number) => void>();
let scanned = 0;
const watcher = setInterval(() => {
  const calls = slack.calls;
  for (; scanned < calls.length; scanned++) {
    const c = calls[scanned];
    if (c?.method !== 'chat.stopStream' || !c.ok) continue;
    const done = waiting.get(String(c.args.channel));
    if (done) {
      waiting.delete(String(c.args.channel));
      done(c.at);
    }
  }
}, 1);

type Request =
  | { id: number; op: 'setEventsUrl'; url: string }
  | { id: number; op: 'setReply'; content: string; chunkDelayMs: number }
  | { id: number; op: 'turns'; channels: string[] }
  | { id: number; op: 'fire'; channels: string[] }
  | { id: number; op: 'acks'; n: number }
  | { id: number; op: 'close' };

async function handle(req: Request): Promise<unknown> {
  switch (req.op) {
    case 'setEventsUrl':
      slack.setEventsUrl(req.url);
      return null;
    case 'setReply':
      reply = { content: req.content, chunkDelayMs: req.chunkDelayMs };
      return null;
    case 'turns':
      return Promise.all(
        req.channels.map(async (channel, i) => {
          const closed = new Promise<number>((resolve) => waiting.set(channel, resolve));
          const t0 = Date.now();
          await slack.postUserMessage({
            channel,
            user: `U${i}`,
            text: `<@${slack.botUserId}> question ${i}`,
          });
          return (await closed) - t0;
        }),
      );
    case 'fire':
      await Promise.all(
        req.channels.map((channel, i) =>
          slack.postUserMessage({ channel, user: `U${i}`, text: `<@${slack.botUserId}> long job` }),
        ),
      );
      return null;
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
    case 'close':
      clearInterval(watcher);
      await slack.close();
      await llm.close();
      return null;
  }
}

parentPort?.on('message', (req: Request) => {
  handle(req).then(
    (result) => parentPort?.postMessage({ id: req.id, result }),
    (err: unknown) =>
      parentPort?.postMessage({
        id: req.id,
        error: err instanceof Error ? err.message : String(err),
      }),
  );
});
parentPort?.postMessage({
  ready: {
    llmBaseURL: llm.baseURL,
    slackApiUrl: slack.apiUrl,
    botToken: slack.botToken,
  },
});
