// Tool calling through the real agent, and isolation (ARCHITECTURE.md, "Invariants" 1): a tool, and
// LangChain callbacks around it, see only their own turn's scope while many turns interleave.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { ToolRegistry } from '../../src/agent/tool-registry.ts';
import { applyLangChainEnvironment } from '../../src/config/runtime-env.ts';
import { currentScope } from '../../src/scope/scope.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { mulberry32 } from '../support/prng.ts';
import { waitForReply } from '../support/slack-helpers.ts';

// Seeded, so a failing interleaving can be replayed.
const SEED = 0x5eed;
const random = mulberry32(SEED);

/** Records, inside LangChain's callbacks, whose scope is active. */
class ScopeRecorder extends BaseCallbackHandler {
  name = 'scope-recorder';
  readonly seen: { event: string; expected: string; actual: string | undefined }[] = [];
  override async handleToolStart(_tool: unknown, input: unknown) {
    const expected =
      /asker\W+(U\d+)/.exec(typeof input === 'string' ? input : JSON.stringify(input))?.[1] ?? '?';
    await sleep(random() * 5);
    this.seen.push({ event: 'start', expected, actual: currentScope()?.principal });
  }
  override async handleToolEnd(output: unknown) {
    const expected = /principal\W+(U\d+)/.exec(JSON.stringify(output))?.[1] ?? '?';
    this.seen.push({ event: 'end', expected, actual: currentScope()?.principal });
  }
}

// As main.ts does before anything builds a callback handler.
applyLangChainEnvironment();

describe('agent tools', () => {
  let h: Harness;
  const recorder = new ScopeRecorder();
  before(async () => {
    const whoami = tool(
      async ({ asker }) => {
        await sleep(random() * 20);
        const s = currentScope();
        return JSON.stringify({
          asker,
          principal: s?.principal,
          session: s?.owners.find((o) => o.kind === 'session')?.key,
        });
      },
      {
        name: 'whoami',
        description: 'Says who is asking, from the conversation scope.',
        schema: z.object({ asker: z.string() }),
        callbacks: [recorder],
      },
    );
    h = await startHarness({ tools: new ToolRegistry().register(whoami) });
    h.llm.setResponder((req) => {
      const last = req.messages.at(-1);
      if (last.role === 'tool') return { content: `tool said: ${last.content}` };
      const asker = /\(from (U\d+)\)/.exec(String(last.content))?.[1] ?? 'unknown';
      return { toolCalls: [{ name: 'whoami', arguments: { asker } }], chunkDelayMs: 1 };
    });
  });
  after(async () => {
    await h.close();
  });

  test('the model calls a tool, gets its result and answers with it', async () => {
    const { ts } = await h.slack.postUserMessage({
      channel: 'C40',
      user: 'U7',
      text: `<@${h.slack.botUserId}> who am I?`,
    });
    const replies = await waitForReply(h.slack, 'C40', ts, 'tool said');
    assert.match(replies.map((m) => m.text).join(''), /"principal":"U7"/);
    const toolSchema = h.llm.requests.at(-1)?.body.tools?.[0]?.function;
    assert.equal(toolSchema?.name, 'whoami', 'tool schema sent to the model');
    assert.deepEqual(
      Object.keys(toolSchema?.parameters?.properties ?? {}),
      ['asker'],
      'intent arguments only',
    );
  });

  test('30 interleaved turns: every tool call and callback sees its own turn only', async () => {
    const n = 30;
    const posted = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        h.slack.postUserMessage({
          channel: `C5${String(i).padStart(2, '0')}`,
          user: `U${100 + i}`,
          text: `<@${h.slack.botUserId}> me?`,
        }),
      ),
    );
    for (const [i, p] of posted.entries()) {
      const channel = `C5${String(i).padStart(2, '0')}`;
      const replies = await waitForReply(h.slack, channel, p.ts, 'tool said', 15_000);
      const text = replies.map((m) => m.text).join('');
      assert.match(text, new RegExp(`"principal":"U${100 + i}"`));
      assert.match(text, new RegExp(`"session":"slack:${h.slack.teamId}:${channel}:${p.ts}"`));
    }
    const mismatched = recorder.seen.filter((s) => s.actual !== s.expected);
    assert.ok(recorder.seen.length >= 2 * n, `callbacks ran (${recorder.seen.length})`);
    assert.deepEqual(mismatched, [], 'a callback saw another turn’s scope');
  });
});
