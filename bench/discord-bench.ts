// Interaction → deferred acknowledgement latency while 50 turns are in flight (Discord drops an
// interaction not acknowledged within 3 s; target p99 < 100 ms). Times come from the emulator:
// from dispatching INTERACTION_CREATE to receiving the deferred callback.
import { type Harness, startHarness } from '../test/support/harness.ts';
import { fmt, summary } from './stats.ts';

export async function benchDiscord(): Promise<string[]> {
  const h: Harness = await startHarness({
    discord: true,
    overrides: { core: { maxConcurrentTurns: 64 } },
  });
  try {
    const d = h.discord;
    if (!d) throw new Error('no Discord emulator');
    const [guild] = d.guilds;
    const channel = guild?.channels[0]?.id ?? '';
    const [alice] = d.users.map((u) => u.id);
    // 50 turns streaming slowly: 40 chunks at 100 ms.
    h.llm.setResponder(() => ({
      content: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '),
      chunkDelayMs: 100,
    }));
    for (let i = 0; i < 50; i++) {
      await d.userMessage({
        guildId: guild?.id ?? '',
        channelId: channel,
        userId: alice ?? '',
        content: `busy ${i}`,
        mentionsBot: true,
      });
    }
    await d.waitFor(() => h.app.runner.pendingTurns >= 50 || undefined, 20_000);
    const inFlight = h.app.runner.pendingTurns;
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { id } = await d.slashCommand({
        guildId: guild?.id ?? '',
        channelId: channel,
        userId: alice ?? '',
        name: 'ask',
        options: [{ name: 'question', type: 3, value: `question ${i}` }],
      });
      ids.push(id);
      await new Promise((r) => setTimeout(r, 10));
    }
    const acked = await d.waitFor(() => {
      const recs = d
        .interactions()
        .filter((r) => ids.includes(r.id) && r.acknowledgedAt !== undefined);
      return recs.length === ids.length ? recs : undefined;
    }, 30_000);
    const lat = acked.map((r) => (r.acknowledgedAt ?? 0) - r.createdAt);
    if (process.env.BENCH_DEBUG)
      console.error(
        acked
          .map((r) => `${r.createdAt % 100000}:${(r.acknowledgedAt ?? 0) - r.createdAt}`)
          .join(' '),
      );
    const s = summary(lat);
    return [
      `interaction → deferred ack with ${inFlight} turns in flight: p50 ${fmt(s.p50)}, p99 ${fmt(s.p99)}, max ${fmt(s.max)} (n=${s.n}; target p99 < 100 ms)`,
    ];
  } finally {
    await h.close();
  }
}
