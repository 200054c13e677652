// Issue 12's feedback figure: how long storing one vote takes (a press of an answer's 👍/👎 through
// Conversation.interact: the reference checked, the pending vote read, the turn record read, the
// person's earlier vote read, the vote written, the day index appended under its claim) while 50
// turns are streaming answers in the same process.
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
    // Answered turns to vote on: the references of the buttons under the answers.
    const ids: { up: string; down: string }[] = [];
    h.llm.setResponder(() => ({ content: 'short answer' }));
    for (let i = 0; i < ANSWERED; i++) {
      const { ts, deliveries } = await h.slack.postUserMessage({
        channel: `CB${i % 5}`,
        user: 'UASK',
        text: `<@${h.slack.botUserId}> question ${i}`,
      });
      await h.handled(ts, deliveries.length);
      const value = JSON.stringify(h.slack.messages(`CB${i % 5}`, ts).map((m) => m.blocks ?? []));
      const refs = [...value.matchAll(/"value":"(t1\.feedback\.(?:up|down)\.[^"]+)"/g)].map(
        (x) => x[1] as string,
      );
      const up = refs.find((r) => r.includes('.up.'));
      const down = refs.find((r) => r.includes('.down.'));
      if (!up || !down) throw new Error('an answer without feedback buttons');
      ids.push({ up, down });
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
      const answer = ids[i % ids.length] as { up: string; down: string };
      const r = await h.app.core.interact({
        kind: 'act',
        ref: i % 3 === 0 ? answer.down : answer.up,
        actor: { id: `UV${i % 200}`, may: async () => false },
        project: { platform: 'slack', projectId: project },
        traceId: `bench-${i}`,
      });
      times.push(performance.now() - t);
      if (r.outcome !== 'done' && r.outcome !== 'asked') throw new Error(`vote ${r.outcome}`);
      during = Math.min(during, await inFlight(h));
    }
    const s = summary(times);
    return `feedback write path (a vote through Conversation.interact, ${label} store) while ${IN_FLIGHT} turns stream answers (at least ${during} in flight throughout), n=${s.n}: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`;
  } finally {
    await h.close();
  }
}

export async function benchFeedback(): Promise<string[]> {
  return [await run('SQLite', {})];
}
