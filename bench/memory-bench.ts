// Savings of context management on a scripted 10-turn product-recommendation chat where every turn
// adds 2–5k tokens of tool JSON: input tokens at turns 5 and 10 with and without compression.
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { ToolRegistry } from '../src/agent/tool-registry.ts';
import type { ScriptedReply } from '../test/emulators/openai/index.ts';
import { type Harness, startHarness } from '../test/support/harness.ts';
import { waitForReply } from '../test/support/slack-helpers.ts';

const TURNS = 10;
const QUESTIONS = [
  'I need a laptop for video editing, budget $2,000.',
  'Which of those has the best screen?',
  'Compare battery life of the top three.',
  'Any with 64 GB of RAM?',
  'What about weight under 2 kg?',
  'Show options with Thunderbolt 4.',
  'Which ones ship this week?',
  'Any discounts for students?',
  'What do reviews say about the keyboards?',
  'OK, recommend one and explain why.',
];

function catalogue(turn: number): string {
  // 2–5k tokens of product JSON, different every turn.
  const n = 12 + ((turn * 7) % 18);
  const items = Array.from({ length: n }, (_, i) => ({
    sku: `LPT-${turn}${String(i).padStart(3, '0')}`,
    name: `Model ${turn}-${i} Creator ${i % 2 ? 'Pro' : 'Air'}`,
    price_usd: 1400 + ((i * 137 + turn * 91) % 900),
    specs: {
      cpu: `X${i % 9}-${turn}00H`,
      ram_gb: [16, 32, 64][i % 3],
      gpu: `RTX ${4050 + (i % 4) * 10}`,
      screen: '16" 2560x1600 OLED 120Hz',
      weight_kg: 1.6 + (i % 7) / 10,
      battery_wh: 70 + (i % 5) * 5,
    },
    reviews: [`Solid build, quiet fans (${i}).`, 'Colour-accurate panel; keyboard is shallow.'],
    stock: { warehouse: ['Seoul', 'Busan', 'Incheon'][i % 3], ships_in_days: i % 6 },
  }));
  return JSON.stringify({ query_turn: turn, results: items });
}

function script(req: { messages: { role: string; content: unknown }[] }): ScriptedReply {
  if (String(req.messages[0]?.content).includes('You compress a chat thread')) {
    return {
      content:
        '- Wants a video-editing laptop, budget $2,000.\n- Narrowed to OLED 16" models with 64 GB RAM, under 2 kg, Thunderbolt 4.\n- Shortlist: Model 3-4, Model 5-2, Model 7-9.',
    };
  }
  const last = req.messages.at(-1);
  if (last?.role === 'tool')
    return {
      content:
        'Based on the catalogue, Model 3-4 Creator Air fits best: 64 GB RAM, 1.7 kg, ships in 2 days.',
    };
  const turn = Number(/\[turn (\d+)\]/.exec(String(last?.content))?.[1] ?? 0);
  return { toolCalls: [{ name: 'product_search', arguments: { query: `turn ${turn}` } }] };
}

async function run(
  compress: boolean,
): Promise<{ firstCall: number[]; perTurn: number[]; summaries: number }> {
  const search = tool(async ({ query }) => catalogue(Number(/\d+/.exec(query)?.[0] ?? 0)), {
    name: 'product_search',
    description: 'Search the product catalogue.',
    schema: z.object({ query: z.string() }),
  });
  const h: Harness = await startHarness({
    tools: new ToolRegistry().register(search),
    overrides: compress
      ? {}
      : { memory: { compressAtTokens: 1_000_000, toolOutputMaxChars: 10_000_000 } },
  });
  try {
    h.llm.setModels([{ id: 'qwen3-8b', max_model_len: 131_072 }]);
    h.llm.setResponder(script);
    const firstCall: number[] = [];
    const perTurn: number[] = [];
    let root = '';
    for (let t = 1; t <= TURNS; t++) {
      const before = h.llm.requests.length;
      const text = `[turn ${t}] ${QUESTIONS[t - 1]}`;
      if (t === 1)
        root = (
          await h.slack.postUserMessage({
            channel: 'CBENCH',
            user: 'U1',
            text: `<@${h.slack.botUserId}> ${text}`,
          })
        ).ts;
      else await h.slack.postUserMessage({ channel: 'CBENCH', user: 'U1', thread_ts: root, text });
      await waitForReply(h.slack, 'CBENCH', root, new RegExp(`(fits best[\\s\\S]*){${t}}`), 20_000);
      const reqs = h.llm.requests
        .slice(before)
        .filter((r) => !String(r.body.messages[0]?.content).includes('You compress a chat thread'));
      const tokens = reqs.map((r) => h.llm.countPromptTokens(r.body));
      firstCall.push(tokens[0] ?? 0);
      perTurn.push(tokens.reduce((a, b) => a + b, 0) / Math.max(1, tokens.length));
    }
    const summaries = h.llm.requests.filter((r) =>
      String(r.body.messages[0]?.content).includes('You compress a chat thread'),
    ).length;
    return { firstCall, perTurn, summaries };
  } finally {
    await h.close();
  }
}

export async function benchMemory(): Promise<string[]> {
  const off = await run(false);
  const on = await run(true);
  const at = (xs: number[], t: number) => Math.round(xs[t - 1] ?? 0).toLocaleString('en');
  return [
    `10-turn recommendation chat, average input tokens per model call: turn 5 — ${at(off.perTurn, 5)} without compression vs ${at(on.perTurn, 5)} with; turn 10 — ${at(off.perTurn, 10)} vs ${at(on.perTurn, 10)} (published reference: ~12,000→~3,500 and ~25,000→~4,500)`,
    `  first model call of the turn: turn 5 ${at(off.firstCall, 5)} vs ${at(on.firstCall, 5)}; turn 10 ${at(off.firstCall, 10)} vs ${at(on.firstCall, 10)}; summary calls: ${on.summaries} (without compression: ${off.summaries})`,
  ];
}
