// The floor under the bot's CPU per streamed turn (bench/slack-bench.ts): a bare node:http client
// reading the same streamed answer from the emulator and doing nothing with it.
import http from 'node:http';
import type { Emulators } from './slack-rig.ts';

/**
 * The floor under the bot's CPU per turn: a bare node:http client in this process reading the
 * same streamed answer from the emulator and doing nothing with it, `concurrency` at a time.
 * Returns process CPU (user+system) per stream, in ms.
 */
export async function bareStreamCpu(
  emu: Emulators,
  concurrency: number,
  streams: number,
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL(`${emu.ends.llmBaseURL}/chat/completions`);
  const body = JSON.stringify({
    model: 'qwen3-8b',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.on('data', () => undefined);
          res.once('end', resolve);
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  const run = async (n: number) => {
    let left = n;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await one();
      }),
    );
  };
  await run(concurrency * 2);
  const cpu0 = process.cpuUsage();
  await run(streams);
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return (cpu.user + cpu.system) / 1000 / streams;
}
