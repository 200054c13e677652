// The floor for issue 28: a minimal Bolt app that acknowledges a mention, reads the emulated
// model's stream to its end and posts the answer once, nothing else. It runs in a process of its
// own (forkBareBolt), as the bot does in the burst bench, against the same emulators.
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

export interface BareBolt {
  eventsUrl: string;
  stop(): Promise<void>;
}

/** What the bare app posts before the model's text: the bench waits for it. */
export const FLOOR_MARK = 'floor-answer:';

export async function startBareBolt(o: {
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
  llmBaseURL: string;
}): Promise<BareBolt> {
  const receiver = new HTTPReceiver({ signingSecret: o.signingSecret, logLevel: LogLevel.ERROR });
  const app = new App({
    token: o.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: o.slackApiUrl },
  });
  app.event('app_mention', async ({ event, client }) => {
    const res = await fetch(`${o.llmBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'qwen3-8b',
        messages: [{ role: 'user', content: event.text }],
        stream: true,
      }),
    });
    // Read the whole stream; the text itself does not matter to the floor.
    const text = await res.text();
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.ts,
      text: `${FLOOR_MARK} ${text.length} bytes`,
    });
  });
  app.event('message', async () => undefined);
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  const port = (server.address() as AddressInfo).port;
  return {
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    stop: async () => {
      await app.stop();
    },
  };
}

/** The floor in a process of its own (bench/bare-bolt-process.ts), as a split role runs. */
export async function forkBareBolt(o: Parameters<typeof startBareBolt>[0]): Promise<BareBolt> {
  const { fork } = await import('node:child_process');
  const child = fork(new URL('./bare-bolt-process.ts', import.meta.url), [JSON.stringify(o)]);
  const eventsUrl = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { eventsUrl: string }) => resolve(m.eventsUrl));
    child.once('exit', (code) => reject(new Error(`bare Bolt process exited (${code})`)));
  });
  return {
    eventsUrl,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
