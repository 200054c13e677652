// What a split-role cluster runs against, started and stopped in one place: a private Redis, the
// model emulators (text and vision), Slack's and (unless left out) Discord's, and a scratch
// directory. The processes spawned through it are killed when it closes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type DiscordEmulator, startDiscordEmulator } from '../emulators/discord/index.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { type SlackEmulator, startSlackEmulator } from '../emulators/slack/index.ts';
import { BotProcess, clusterEnv, type Role, writeClusterConfig } from './cluster.ts';
import { startPrivateRedis, type TestRedis } from './redis-server.ts';

export interface SlackClusterRig {
  readonly redis: TestRedis;
  readonly llm: OpenAIEmulator;
  readonly vision: OpenAIEmulator;
  readonly slack: SlackEmulator;
  readonly dir: string;
  /** Every process spawned through the rig, in order. */
  readonly procs: BotProcess[];
  /** Writes the cluster's config file and returns the environment its processes start with. */
  env(configYaml: string): Record<string, string>;
  spawn(role: Role, name: string, env: Record<string, string>): BotProcess;
  /** Kills every process (SIGKILL), then stops the emulators and Redis and removes the directory. */
  close(): Promise<void>;
}

export interface ClusterRig extends SlackClusterRig {
  readonly discord: DiscordEmulator;
}

interface RigOptions {
  signingSecret: string;
  /** The scratch directory's name starts with it. */
  dirPrefix: string;
  /** false: no Discord emulator, and no DISCORD_* in the environment. */
  discord?: boolean;
}

export function startClusterRig(o: RigOptions & { discord: false }): Promise<SlackClusterRig>;
export function startClusterRig(o: RigOptions): Promise<ClusterRig>;
export async function startClusterRig(o: RigOptions): Promise<SlackClusterRig | ClusterRig> {
  // Whatever started is stopped again if a later part fails to start.
  const stops: (() => Promise<void>)[] = [];
  const started = <T>(x: T, stop: (x: T) => Promise<void>): T => {
    stops.unshift(() => stop(x));
    return x;
  };
  try {
    const redis = started(await startPrivateRedis(), (r) => r.stop());
    const llm = started(await startOpenAIEmulator(), (e) => e.close());
    const vision = started(
      await startOpenAIEmulator({ models: [{ id: 'qwen2.5-vl-7b', max_model_len: 16384 }] }),
      (e) => e.close(),
    );
    const slack = started(await startSlackEmulator({ signingSecret: o.signingSecret }), (e) =>
      e.close(),
    );
    const discord =
      o.discord === false ? undefined : started(await startDiscordEmulator(), (e) => e.close());
    const dir = mkdtempSync(path.join(tmpdir(), o.dirPrefix));
    const rig = slackRig(o.signingSecret, { redis, llm, vision, slack, dir }, discord);
    return discord ? { ...rig, discord } : rig;
  } catch (err) {
    for (const stop of stops) await stop().catch(() => undefined);
    throw err;
  }
}

function slackRig(
  signingSecret: string,
  parts: Pick<SlackClusterRig, 'redis' | 'llm' | 'vision' | 'slack' | 'dir'>,
  discord: DiscordEmulator | undefined,
): SlackClusterRig {
  const { redis, llm, vision, slack, dir } = parts;
  const procs: BotProcess[] = [];
  return {
    ...parts,
    procs,
    env(configYaml) {
      const all = clusterEnv({
        dir,
        storeUrl: redis.url,
        config: writeClusterConfig(dir, configYaml),
        llm,
        vision,
        slack,
        signingSecret,
        discord: discord ?? { botToken: '', applicationId: '', apiUrl: '' },
      });
      if (discord) return all;
      return Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('DISCORD_')));
    },
    spawn(role, name, env) {
      const p = new BotProcess(role, name, env);
      procs.push(p);
      return p;
    },
    async close() {
      await Promise.all(procs.map((p) => p.kill9()));
      await slack.close();
      await discord?.close();
      await llm.close();
      await vision.close();
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
