// Gateway hand-over past Discord's resume window, with real processes: two gateways and a worker
// on a private Redis, against the Discord and model emulators. The active gateway is killed, its
// session ends (as Discord ends one left alone too long), and the standby's RESUME gets
// INVALID_SESSION: it goes on with its own new session, and says in the log which span of time
// may have been missed. Then a graceful hand-over (SIGTERM): the session is left resumable and the
// next gateway resumes it. (A kill -9 inside the window is in split-roles.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { DiscordEmulator } from '../emulators/discord/index.ts';
import { type BotProcess, connectedGateway, type Role } from '../support/cluster.ts';
import { type ClusterRig, startClusterRig } from '../support/cluster-rig.ts';
import { answeredTags as answered, askTagged } from './discord-asks.ts';
import { taggedAnswer } from './tagged-answers.ts';

let rig: ClusterRig;
let discord: DiscordEmulator;
let procEnv: Record<string, string>;
let procs: BotProcess[] = [];

before(async () => {
  rig = await startClusterRig({ signingSecret: 'resume-signing-secret', dirPrefix: 'tm-resume-' });
  ({ discord, procs } = rig);
  rig.llm.setResponder(taggedAnswer);
  procEnv = rig.env(`doctor: { onStart: 'off' }
scale:
  queue: { name: resume-${process.pid}, lockMs: 3000, orderPollMs: 50, backoffMs: 200 }
  gateway: { leaseMs: 2000, renewMs: 500, pollMs: 300, sessionSaveMs: 200 }
`);
  const roles: Role[] = ['gateway', 'gateway', 'worker'];
  for (const [i, role] of roles.entries()) rig.spawn(role, `${role}-${i}`, procEnv);
  await Promise.all(procs.map((p) => p.port(60_000)));
  await discord.waitFor(() => discord.gatewaySessions().connected === 1, 30_000);
});

after(async () => {
  await rig?.close();
});

const answeredTags = () => answered(discord);

test('past the resume window the standby identifies anew and logs what may have been missed', {
  timeout: 120_000,
}, async () => {
  const ask = (tag: string) => askTagged(discord, tag);
  const active = await connectedGateway(procs);
  const standby = procs.find((p) => p.role === 'gateway' && p !== active);
  assert.ok(standby);
  await ask('q-before');
  await discord.waitFor(() => answeredTags().includes('q-before') || undefined, 30_000);

  await active.kill9();
  await discord.waitFor(() => discord.gatewaySessions().connected === 0 || undefined, 30_000);
  // Nobody resumed it in time: Discord ends the session, and what it held is gone.
  assert.equal(discord.expireGatewaySessions(), 1, 'the dead gateway session ended');
  const gapAt = Date.now();
  await ask('q-gap');

  const warned = await standby.waitLog(
    (l) => l.msg?.includes('past its resume window') === true,
    60_000,
  );
  assert.equal(warned.level, 40, 'logged as a warning');
  const from = Date.parse(String(warned.missed_from));
  const until = Date.parse(String(warned.missed_until));
  assert.ok(from <= gapAt && gapAt <= until, 'the span named covers the message sent in the gap');
  assert.ok(discord.gatewaySessions().invalidated >= 1, 'the emulator refused the RESUME');
  assert.equal(
    standby.lines.some((l) => l.msg === 'previous gateway session resumed and replayed'),
    false,
  );

  // The standby's own session carries on.
  await standby.waitLog((l) => l.msg === 'discord connected', 30_000);
  await ask('q-after');
  await discord.waitFor(() => answeredTags().includes('q-after') || undefined, 30_000);
  const count = (tag: string) => answeredTags().filter((t) => t === tag).length;
  assert.equal(count('q-before'), 1);
  assert.equal(count('q-after'), 1);
  // Sent while no session held it: missed (unless the standby's own session had begun by then).
  assert.ok(count('q-gap') <= 1);
});

test('a gateway stopped with SIGTERM hands its session over: the next one resumes it', {
  timeout: 120_000,
}, async () => {
  const active = await connectedGateway(procs);
  const next = rig.spawn('gateway', 'gateway-next', procEnv);
  await next.port(60_000);
  const stopped = active.stop();
  const tags = Array.from({ length: 10 }, (_, i) => `q-handover-${i}`);
  for (const tag of tags) await askTagged(discord, tag);
  assert.equal(await stopped, 0, 'the old gateway stopped cleanly');
  await next.waitLog((l) => l.msg === 'previous gateway session resumed and replayed', 60_000);
  await discord.waitFor(() => tags.every((t) => answeredTags().includes(t)) || undefined, 60_000);
  for (const tag of tags)
    assert.equal(answeredTags().filter((t) => t === tag).length, 1, `${tag} answered once`);
});
