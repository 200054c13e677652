// A real Redis for the store contract tests: TEST_REDIS_URL when CI started one, otherwise a
// private redis-server on a free loopback port.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port} within ${timeoutMs} ms`);
}

export async function startTestRedis(): Promise<TestRedis> {
  const fromEnv = process.env.TEST_REDIS_URL;
  if (fromEnv) return { url: fromEnv, stop: async () => undefined };
  return startPrivateRedis();
}

/** A redis-server of this test's own, even when a shared one is given (its keys are all ours). */
export async function startPrivateRedis(): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    {
      stdio: 'ignore',
    },
  );
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('error', (err) =>
      reject(new Error(`cannot start redis-server (apt-get install redis-server): ${err.message}`)),
    );
    child.once('spawn', () => resolve());
  });
  await spawned;
  await waitForPort(port, child, 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
