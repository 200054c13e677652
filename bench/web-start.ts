// One `npm start` (`node bin/run.mjs src/main.ts`, no chat platform configured) from a cold process
// to the first answer on the web chat's page, for bench/web-bench.ts.
//
// The address is read from the banner a person sees ("threadmind web chat: <address>"). The bot
// prints it only for a person (a terminal, or LOG_FORMAT=pretty): in a pipe its stdout is pino's
// JSON lines and there is no banner, which is why this sets LOG_FORMAT. Every step runs under one
// deadline, so a start that never prints, never serves or never answers fails the bench with what
// the process wrote instead of hanging it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebChatClient } from '../test/support/web-client.ts';
import type { Emulators } from './slack-rig.ts';

export interface StartFigures {
  /** Process spawned → the address printed (ms). */
  printed: number;
  /** → the page (GET /) served. */
  page: number;
  /** → the first question's answer finished on the page's event stream. */
  answered: number;
  /** That answer's model time at the emulator (NaN with the embedded model). */
  model: number;
}

const BANNER = /threadmind web chat: (\S+)/;
/** The last characters the process wrote, for the error that says why a start failed. */
const KEPT = 4000;

/**
 * Starts the bot against the OpenAI emulator (`emu`, its model time reported) or with `modelEnv`
 * (the embedded CI model); throws, with the process's output, once `deadlineMs` has passed.
 */
export async function startToFirstAnswer(
  emu: Emulators | undefined,
  modelEnv: Record<string, string>,
  deadlineMs: number,
): Promise<StartFigures> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-start-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, ['bin/run.mjs', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'pretty',
      ...(emu ? { LLM_TEXT_BASE_URL: emu.ends.llmBaseURL } : {}),
      ...modelEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: unknown) => {
    out = (out + String(d)).slice(-KEPT);
  };
  child.stderr.on('data', keep);
  let step = 'the address printed';
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `npm start: ${step} did not happen within ${deadlineMs / 1000} s; the process wrote:\n${out}`,
          ),
        ),
      deadlineMs,
    );
  });
  // Raced by every step; once the steps are done, nothing else listens.
  expired.catch(() => undefined);
  const within = <T>(what: string, p: Promise<T>): Promise<T> => {
    step = what;
    return Promise.race([p, expired]);
  };
  try {
    const url = await within(
      'the address printed',
      new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stdout.on('data', (d) => {
          keep(d);
          seen += String(d);
          const m = BANNER.exec(seen);
          if (m?.[1]) resolve(m[1]);
        });
        child.once('error', reject);
        child.once('exit', (code, signal) =>
          reject(
            new Error(`npm start exited (${code ?? signal}) before printing its address:\n${out}`),
          ),
        );
      }),
    );
    const printed = performance.now() - t0;
    const client = new WebChatClient(url);
    await within(
      'the page served',
      client.request('/').then((res) => res.text()),
    );
    const page = performance.now() - t0;
    const thread = await within('a thread created', client.createThread());
    const view = await within('the event stream opened', client.watch(thread.id));
    try {
      const before = emu
        ? await emu.call<{ total: number; modelRequests: number }>({ op: 'callCounts', since: 0 })
        : { total: 0, modelRequests: 0 };
      await within('the question accepted', client.send(thread.id, 'what can you do?'));
      await within(
        'the first answer finished',
        view.until(
          () => view.messages().some((m) => m.author === 'bot' && !m.streaming),
          'the first answer',
          deadlineMs,
        ),
      );
      const answered = performance.now() - t0;
      const model = emu
        ? await emu.call<number>({ op: 'modelTime', since: before.modelRequests })
        : Number.NaN;
      return { printed, page, answered, model };
    } finally {
      view.close();
    }
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
