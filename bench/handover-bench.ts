// Gateway hand-over (issue 24), with real processes on a private Redis against the emulators: two
// gateways and a worker with the default lease (10 s, standby polls every 2 s). Each run sends a
// batch of top-level mentions, kills the active gateway with SIGKILL in the middle of it, sends the
// rest while no gateway is connected, and starts a new standby (as a supervisor would). Figures:
//  - messages lost (never answered) and answered twice, inside Discord's resume window (target 0);
//  - takeover time: kill -9 → the standby hands the first replayed event to its client (its log
//    line's time), and kill -9 → the standby connected to Discord.
import { answeredTags, askTagged } from '../test/scale/discord-asks.ts';
import { taggedAnswer } from '../test/scale/tagged-answers.ts';
import type { Role } from '../test/support/cluster.ts';
import { startClusterRig } from '../test/support/cluster-rig.ts';

const RUNS = 3;
const BATCH = 40;
const ANSWER_WAIT_MS = 90_000;
const SIGNING_SECRET = 'bench-handover-secret';

export async function benchHandover(): Promise<string[]> {
  const rig = await startClusterRig({
    signingSecret: SIGNING_SECRET,
    dirPrefix: 'tm-bench-handover-',
  });
  const { discord, procs } = rig;
  rig.llm.setResponder(taggedAnswer);
  const env = rig.env(`doctor: { onStart: 'off' }
scale:
  queue: { name: handover-${process.pid}, orderPollMs: 20 }
`);
  let n = 0;
  const spawn = (role: Role) => rig.spawn(role, `${role}-${n++}`, env);
  const out: string[] = [];
  try {
    const first = [spawn('gateway'), spawn('gateway'), spawn('worker')];
    await Promise.all(first.map((p) => p.port()));
    await discord.waitFor(() => discord.gatewaySessions().connected === 1, 60_000);
    const answers = (): Map<string, number> => {
      const count = new Map<string, number>();
      for (const tag of answeredTags(discord)) count.set(tag, (count.get(tag) ?? 0) + 1);
      return count;
    };
    const rows: { lost: number; twice: number; replayMs: number; connectMs: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const gateways = procs.filter((p) => p.role === 'gateway' && p.alive);
      const active = gateways.find((g) => g.lines.some((l) => l.msg === 'discord connected'));
      const standby = gateways.find((g) => g !== active);
      if (!active || !standby) throw new Error('handover bench: no active gateway and standby');
      const tags = Array.from({ length: BATCH }, (_, i) => `q-r${run}-${i}`);
      const send = async (from: number, to: number) => {
        for (const tag of tags.slice(from, to)) await askTagged(discord, tag);
      };
      const mark = standby.lines.length;
      await send(0, BATCH / 2);
      const killedAt = Date.now();
      await active.kill9();
      await send(BATCH / 2, BATCH);
      const replayed = await standby.waitLog(
        (l) => l.msg === 'handing replayed gateway events to the client',
        60_000,
        mark,
      );
      const connected = await standby.waitLog((l) => l.msg === 'discord connected', 60_000, mark);
      const fresh = spawn('gateway');
      await fresh.port();
      await discord
        .waitFor(() => tags.every((t) => answers().has(t)) || undefined, ANSWER_WAIT_MS)
        .catch(() => undefined);
      const got = answers();
      rows.push({
        lost: tags.filter((t) => !got.has(t)).length,
        twice: tags.filter((t) => (got.get(t) ?? 0) > 1).length,
        replayMs: Number(replayed.time) - killedAt,
        connectMs: Number(connected.time) - killedAt,
      });
    }
    const list = (f: (r: (typeof rows)[number]) => number, unit = '') =>
      rows.map((r) => `${f(r)}${unit}`).join(', ');
    const s = (ms: number) => (ms / 1000).toFixed(1);
    out.push(
      `messages lost in a gateway takeover inside the resume window (kill -9 mid-batch of ${BATCH}): ${list((r) => r.lost)} per run (n=${RUNS} runs; target 0); answered twice: ${list((r) => r.twice)}`,
      `takeover, kill -9 → first replayed event handed to the client (default lease 10 s, poll 2 s): ${rows.map((r) => s(r.replayMs)).join(', ')} s (n=${RUNS})`,
      `takeover, kill -9 → the standby connected to Discord: ${rows.map((r) => s(r.connectMs)).join(', ')} s (n=${RUNS})`,
    );
  } finally {
    await rig.close();
  }
  return out;
}
