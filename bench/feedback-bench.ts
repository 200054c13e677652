// Issue 12's feedback figure: how long storing one vote takes (Conversation.vote: the turn record
// read, the person's earlier vote read, the vote written, the day index appended under its claim)
// while 50 turns are streaming answers in the same process.
import type { Harness } from '../test/support/harness.ts';
import { startHarness } from '../test/support/harness.ts';
import { summary } from './stats.ts';

const IN_FLIGHT = 50;
const VOTES = 1000;
const ANSWERED = 40;

async function inFlight(h: Harness): Promise<number> {
  return (await h.app.metrics.turnsInFlight.get()).values[0]?.value ?? 0;
}

async function run(label: string, env: Record<string, string>): Promise<string> {
  const h = await startHarness({
    env,
    overrides: { core: { maxConcurrentTurns: IN_FLIGHT + 4 } },
  });
  try {
    // Answered turns to vote on: their feedback ids, from the buttons under the answers.
    const ids: string[] = [];
    h.llm.setResponder(() => ({ content: 'short answer' }));
    for (let i = 0; i < ANSWERED; i++) {
      const { ts, deliveries } = await h.slack.postUserMessage({
        channel: `CB${i % 5}`,
        user: 'UASK',
        text: `<@${h.slack.botUserId}> question ${i}`,
      });
      await h.handled(ts, deliveries.length);
      const value = JSON.stringify(h.slack.messages(`CB${i % 5}`, ts).map((m) => m.blocks ?? []));
      const id = /"value":"up:([0-9a-f-]{36})"/.exec(value)?.[1];
      if (!id) throw new Error('an answer without feedback buttons');
      ids.push(id);
    }
    const project = h.slack.teamId;
    // 50 slow answers streaming at once.
    const long = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    h.llm.setResponder(() => ({ content: long, chunkDelayMs: 20 }));
    for (let i = 0; i < IN_FLIGHT; i++) {
      await h.slack.postUserMessage({
        channel: `CLOAD${i}`,
        user: 'ULOAD',
        text: `<@${h.slack.botUserId}> keep talking ${i}`,
      });
    }
    const deadline = Date.now() + 30_000;
    while ((await inFlight(h)) < IN_FLIGHT) {
      if (Date.now() > deadline) throw new Error(`only ${await inFlight(h)} turns in flight`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const times: number[] = [];
    let during = Number.POSITIVE_INFINITY;
    for (let i = 0; i < VOTES; i++) {
      const t = performance.now();
      const r = await h.app.core.vote({
        platform: 'slack',
        projectId: project,
        id: ids[i % ids.length] as string,
        userId: `UV${i % 200}`,
        vote: i % 3 === 0 ? 'down' : 'up',
      });
      times.push(performance.now() - t);
      if (r.status !== 'stored' && r.status !== 'replaced') throw new Error(`vote ${r.status}`);
      during = Math.min(during, await inFlight(h));
    }
    const s = summary(times);
    return `feedback write path (Conversation.vote, ${label} store) while ${IN_FLIGHT} turns stream answers (at least ${during} in flight throughout), n=${s.n}: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`;
  } finally {
    await h.close();
  }
}

export async function benchFeedback(): Promise<string[]> {
  return [await run('SQLite', {})];
}
