// What the admin who switches servers on reads: each tool with whether it needs approval, its
// arguments from the schema; a server's words cannot format or ping (code spans); a long list is
// cut with how many were left out; a server that is down or not declared is said to be so.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ServerOverview, summariseSchema } from '../../src/agent/mcp/mcp-overview.ts';
import { serversSwitchedOn } from '../../src/core/tool-server-texts.ts';

const tool = (name: string, over: Partial<ServerOverview['tools'][number]> = {}) => ({
  name: `jira__${name}`,
  description: `Does ${name}.`,
  args: 'project: string (required)',
  needsApproval: true,
  leftOut: false,
  ...over,
});

describe('the tools shown when a server is switched on', () => {
  test('arguments in words: name, type, required; enums listed', () => {
    assert.equal(
      summariseSchema({
        type: 'object',
        properties: {
          project: { type: 'string' },
          limit: { type: 'number' },
          kind: { enum: ['a', 'b'] },
        },
        required: ['project'],
      }),
      'project: string (required), limit: number, kind: one of "a"|"b"',
    );
    assert.equal(summariseSchema({ type: 'object' }), '');
  });

  test('each tool says whether it needs approval; a server’s words stay in code spans', () => {
    const text = serversSwitchedOn([
      {
        name: 'jira',
        connected: true,
        private: true,
        tools: [
          tool('create', { description: 'Creates. `@everyone` **now**' }),
          tool('search', { needsApproval: false, args: '' }),
          tool('huge', { leftOut: true }),
        ],
      },
    ]);
    assert.match(
      text,
      /`jira__create` — \*\*needs approval\*\*: `Creates\. ˋ@everyoneˋ \*\*now\*\*`/,
    );
    assert.match(text, /`jira__search` — runs without asking \(read-only\).* · no arguments/);
    assert.match(text, /`jira__huge` .*not offered: its schema is over the size cap/);
    assert.match(text, /answers that use its results go to the asker alone/);
  });

  test('a long list is cut with a count; a server down or not declared is said so', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      tool(`t${i}`, { description: 'x'.repeat(80) }),
    );
    const text = serversSwitchedOn([
      { name: 'jira', connected: true, private: false, tools: many },
      { name: 'wiki', connected: false, private: false, tools: [] },
      'nosuch',
    ]);
    assert.ok(text.length < 1900, `fits one Discord message with the Saved line: ${text.length}`);
    const shown = text.match(/`jira__t\d+`/g)?.length ?? 0;
    assert.match(text, new RegExp(`…and ${40 - shown} more tools not listed here`));
    assert.match(text, /\*\*wiki\*\*: not reachable now/);
    assert.match(text, /\*\*nosuch\*\*: not a server in the configuration/);
  });
});
