import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { recentHistory } from '../../src/core/turn-prompt.ts';

test('the prompt window never starts on a tool call or tool result', () => {
  const history = [
    new HumanMessage('q1'),
    new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'search', args: {} }] }),
    new ToolMessage({ content: 'hits', tool_call_id: 't1' }),
    new AIMessage('a1'),
    new HumanMessage('q2'),
    new AIMessage('a2'),
  ];
  assert.deepEqual(
    recentHistory(history, 5).map((m) => m.content),
    ['q2', 'a2'],
  );
  assert.deepEqual(
    recentHistory(history, 6).map((m) => m.content),
    ['q1', '', 'hits', 'a1', 'q2', 'a2'],
  );
  assert.deepEqual(recentHistory(history, 1), []);
});
