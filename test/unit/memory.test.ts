import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { estimateMessages, fitToWindow } from '../../src/memory/fit-to-window.ts';
import {
  isSummaryMessage,
  summaryMessages,
  summaryText,
} from '../../src/memory/summary-message.ts';
import { cleanUpToolOutput, describeToolOutput } from '../../src/memory/tool-output-cleanup.ts';
import { splitTurns, transcript } from '../../src/memory/turns.ts';

const searchResult = `<data source="search_attachment">
[1] handbook.pdf, page 41 (posted in this channel)
${'leave policy text '.repeat(40)}

[2] handbook.pdf, page 44 (posted in this channel)
more text

[3] rules.docx, section "Leave" (shared with the workspace)
x
</data>`;

test('bulky tool output becomes a one-line record of what it was', () => {
  assert.equal(
    describeToolOutput('search_attachment', searchResult),
    'search_attachment: 3 hits in handbook.pdf pp. 41–44, rules.docx',
  );
  const call = new AIMessage({
    content: '',
    tool_calls: [{ id: 't1', name: 'search_attachment', args: { query: 'leave' } }],
  });
  const big = new ToolMessage({
    content: searchResult,
    tool_call_id: 't1',
    name: 'search_attachment',
  });
  const small = new ToolMessage({
    content: 'short',
    tool_call_id: 't2',
    name: 'search_attachment',
  });
  const out = cleanUpToolOutput(
    [call, big, small, new AIMessage('Leave is 25 days (handbook.pdf p. 41).')],
    200,
  );
  assert.equal(
    out[1]?.content,
    '[search_attachment: 3 hits in handbook.pdf pp. 41–44, rules.docx]',
  );
  assert.equal((out[1] as ToolMessage).tool_call_id, 't1', 'still answers its tool call');
  assert.equal(out[2]?.content, 'short', 'small results stay');
  assert.equal(
    out[3]?.content,
    'Leave is 25 days (handbook.pdf p. 41).',
    'the answer that used it stays',
  );
});

test('a summary is a user message marked as such, followed by an acknowledgement', () => {
  const [summary, ack] = summaryMessages('- Budget: $48,500');
  assert.ok(summary && ack);
  assert.equal(summary.type, 'human');
  assert.ok(isSummaryMessage(summary) && isSummaryMessage(ack));
  assert.equal(summaryText(summary), '- Budget: $48,500');
  assert.match(String(summary.content), /^\[CONVERSATION SUMMARY\][\s\S]*\[END SUMMARY\]$/);
});

test('turns split at each person message; the transcript shortens tool output', () => {
  const history = [
    new HumanMessage('q1'),
    new AIMessage('a1'),
    new HumanMessage('q2'),
    new AIMessage({
      content: '',
      tool_calls: [{ id: 'x', name: 'search_attachment', args: { query: 'q' } }],
    }),
    new ToolMessage({ content: 'y'.repeat(5000), tool_call_id: 'x', name: 'search_attachment' }),
    new AIMessage('a2'),
  ];
  assert.deepEqual(
    splitTurns(history).map((t) => t.length),
    [2, 4],
  );
  const text = transcript(history, 100);
  assert.match(
    text,
    /Person: q1\nAssistant: a1\nPerson: q2\nAssistant called: search_attachment\(\{"query":"q"\}\)\nTool search_attachment returned: y{100} …\[4900 more characters\]\nAssistant: a2/,
  );
});

test('the window guard drops old turns first, then cuts the biggest message, never the system prompt', () => {
  const system = new SystemMessage('system prompt');
  const msgs = [
    system,
    new HumanMessage('old question'),
    new AIMessage('old answer'),
    new HumanMessage(`paste: ${'word '.repeat(5000)}`),
  ];
  const { messages, trimmed } = fitToWindow(msgs, 500);
  assert.ok(trimmed);
  assert.equal(messages[0], system);
  assert.equal(messages.length, 2, 'the old turn went first');
  assert.ok(estimateMessages(messages) <= 500);
  assert.match(String(messages[1]?.content), /characters cut to fit the model's context window\]$/);
  const fits = [system, new HumanMessage('hi')];
  assert.deepEqual(fitToWindow(fits, 500), { messages: fits, trimmed: false });
});
