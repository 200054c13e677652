// Real threadmind processes in split roles (`node bin/run.mjs src/main.ts`, THREADMIND_ROLE=…),
// against emulators the test runs, sharing one Redis. Each process's JSON log lines are kept, and
// tests wait on them (a lease taken, a turn started, the HTTP port), never on time.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Role = 'all' | 'ingress' | 'worker' | 'gateway';

export interface LogLine {
  msg?: string;
  [k: string]: unknown;
}

export class BotProcess {
  readonly role: Role;
  readonly name: string;
  readonly child: ChildProcess;
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters = new Set<() => void>();

  constructor(role: Role, name: string, env: Record<string, string>) {
    this.role = role;
    this.name = name;
    this.child = spawn(process.execPath, ['bin/run.mjs', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, THREADMIND_ROLE: role },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (line: string) => {
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ msg: line });
      }
      if (process.env.TEST_CLUSTER_LOG) process.stderr.write(`[${name}] ${line}\n`);
      for (const w of this.waiters) w();
    };
    if (this.child.stdout) createInterface({ input: this.child.stdout }).on('line', take);
    if (this.child.stderr) createInterface({ input: this.child.stderr }).on('line', take);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first log line (from `from` on) that matches. */
  waitLog(match: (l: LogLine) => boolean, timeoutMs = 30_000, from = 0): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.lines.slice(from).find(match);
        if (hit) {
          this.waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        } else if (!this.alive) {
          this.waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`${this.name} exited before the awaited log line:\n${this.tail()}`));
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${this.name}: no such log line within ${timeoutMs} ms:\n${this.tail()}`));
      }, timeoutMs);
      this.waiters.add(check);
      void this.exited.then(check);
      check();
    });
  }

  tail(n = 15): string {
    return this.lines
      .slice(-n)
      .map((l) => JSON.stringify(l))
      .join('\n');
  }

  /** The HTTP port it listens on, once it does. */
  async port(timeoutMs = 30_000): Promise<number> {
    const l = await this.waitLog((x) => x.msg === 'http server listening', timeoutMs);
    return Number(l.port);
  }

  /** SIGTERM and wait for the exit code. */
  async stop(): Promise<number | null> {
    if (this.alive) this.child.kill('SIGTERM');
    return this.exited;
  }

  async kill9(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * The gateway that holds the Discord connection, once it has logged so. The emulator counts a
 * session at IDENTIFY, before the gateway has handled READY, so waiting on the emulator alone can
 * find no gateway that knows it is connected yet.
 */
export function connectedGateway(procs: BotProcess[], timeoutMs = 30_000): Promise<BotProcess> {
  const gateways = procs.filter((p) => p.role === 'gateway' && p.alive);
  return Promise.any(
    gateways.map((g) => g.waitLog((l) => l.msg === 'discord connected', timeoutMs).then(() => g)),
  );
}

/** Writes the extra config file every process of a cluster reads (THREADMIND_CONFIG). */
export function writeClusterConfig(dir: string, yaml: string): string {
  const file = path.join(dir, 'cluster.yaml');
  writeFileSync(file, yaml);
  return file;
}

/** The environment every process of a cluster starts with: the shared store and the emulators. */
export function clusterEnv(o: {
  dir: string;
  storeUrl: string;
  config: string;
  llm: { baseURL: string };
  vision: { baseURL: string };
  slack: { apiUrl: string; botToken: string };
  signingSecret: string;
  discord: { botToken: string; applicationId: string; apiUrl: string };
}): Record<string, string> {
  return {
    PORT: '0',
    DATA_DIR: o.dir,
    STORE_URL: o.storeUrl,
    THREADMIND_CONFIG: o.config,
    LLM_TEXT_BASE_URL: o.llm.baseURL,
    LLM_VISION_BASE_URL: o.vision.baseURL,
    SLACK_API_URL: o.slack.apiUrl,
    SLACK_BOT_TOKEN: o.slack.botToken,
    SLACK_SIGNING_SECRET: o.signingSecret,
    DISCORD_TOKEN: o.discord.botToken,
    DISCORD_APPLICATION_ID: o.discord.applicationId,
    DISCORD_API_URL: o.discord.apiUrl,
    LOG_LEVEL: 'info',
  };
}
