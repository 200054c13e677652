// The usage meter books each model call from its reply: streamed or whole, the server's counts when
// it sends them, the local estimate when it does not, once per call, and never a call that failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { createChatModel } from '../../src/llm/chat-model.ts';
import type { UsageBooking } from '../../src/llm/usage-meter.ts';
import { type ModelCallTag, withModelCall } from '../../src/scope/model-call.ts';
import { startOpenAIEmulator } from '../emulators/openai/index.ts';

const tag: ModelCallTag = {
  ...{ project: 'slack:T1', channel: 'slack:T1:C1', person: 'slack:UA' },
  ...{ kind: 'answer', priority: 'interactive' },
};

const lookup = tool(async () => 'found it', {
  name: 'lookup',
  description: 'looks something up',
  schema: z.object({ q: z.string() }),
});

async function withModel(
  streamUsage: boolean,
  fn: (
    chat: ReturnType<typeof createChatModel>,
    emu: Awaited<ReturnType<typeof startOpenAIEmulator>>,
    booked: UsageBooking[],
  ) => Promise<void>,
) {
  const emu = await startOpenAIEmulator({ stream: { usage: streamUsage } });
  const booked: UsageBooking[] = [];
  const chat = createChatModel({
    ...{ baseUrl: emu.baseURL, model: 'qwen3-8b', temperature: 0, maxTokens: 64 },
    ...{ timeoutMs: 10_000, maxRetries: 0, usage: (b: UsageBooking) => booked.push(b) },
  });
  try {
    await fn(chat, emu, booked);
  } finally {
    await emu.close();
  }
}

async function drain(stream: AsyncIterable<AIMessageChunk>): Promise<string> {
  let text = '';
  for await (const c of stream) text += typeof c.content === 'string' ? c.content : '';
  return text;
}

describe('usage meter', () => {
  it('books a streamed answer once, as the server reported it', async () => {
    await withModel(true, async (chat, emu, booked) => {
      emu.enqueue({ content: 'the answer is forty-two' });
      const text = await withModelCall(tag, async () =>
        drain(await chat.stream([new HumanMessage('what is it?')])),
      );
      assert.equal(text, 'the answer is forty-two');
      const reported = emu.reportedUsage[0];
      assert.deepEqual(
        booked.map((b) => [b.kind, b.source, b.prompt, b.completion]),
        [['answer', 'server', reported?.prompt_tokens, reported?.completion_tokens]],
      );
    });
  });

  it('a streamed reply that only asks for tools is a tool round', async () => {
    await withModel(true, async (chat, emu, booked) => {
      emu.enqueue({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
      await withModelCall(tag, async () =>
        drain(await chat.bindTools([lookup]).stream([new HumanMessage('look it up')])),
      );
      assert.deepEqual(
        booked.map((b) => b.kind),
        ['tool_round'],
      );
    });
  });

  it('without the server’s counts, the local estimate is booked, streamed or whole', async () => {
    await withModel(false, async (chat, emu, booked) => {
      emu.enqueue({ content: 'a fairly short reply' }, { content: 'another reply' });
      await withModelCall(tag, async () => {
        await drain(await chat.stream([new HumanMessage('tell me something')]));
        await chat.invoke([new HumanMessage('and again')]);
      });
      assert.equal(emu.reportedUsage.length, 0, 'the server sent no usage');
      assert.equal(booked.length, 2);
      for (const b of booked) {
        assert.equal(b.source, 'estimate');
        assert.ok(Number.isFinite(b.prompt) && b.prompt > 0, 'the prompt is estimated');
        assert.ok(Number.isFinite(b.completion) && b.completion > 0, 'the reply is estimated');
      }
    });
  });

  it('a call that fails, or one without a tag, books nothing', async () => {
    await withModel(true, async (chat, emu, booked) => {
      emu.enqueue({ fault: 'http500' }, { content: 'untagged' });
      await assert.rejects(
        withModelCall(tag, () => chat.invoke([new HumanMessage('fail')])),
        'the call fails',
      );
      await chat.invoke([new HumanMessage('nobody asked')]);
      assert.deepEqual(booked, []);
    });
  });
});
