// Fenced code as the model writes it: one list of cases fed to the server's fence rule
// (src/text/fences.ts: splitting, streaming) and to the page's Markdown parser, which must find
// the same blocks (info string and body) in each.
import { scanFences } from '../../src/text/fences.ts';

export interface FenceCase {
  name: string;
  text: string;
}

/** A fenced block as a reader sees it: its info string and the code in it. */
export interface SeenFence {
  info: string;
  body: string;
}

export const FENCE_CASES: FenceCase[] = [
  { name: 'a language', text: 'Run this:\n\n```sh\nnpm test\n```\n\nThen look.' },
  {
    name: 'an info string with more than a language',
    text: '```ts title=x {1,3}\nconst a = 1;\n```',
  },
  { name: 'a tilde fence', text: '~~~python\nprint("hi")\n~~~\n' },
  { name: 'a fence indented one space', text: ' ```js\n x();\n ```\nafter' },
  { name: 'a fence indented three spaces', text: '   ```\n   a\n   b\n   ```\n' },
  { name: 'a fence indented four spaces', text: 'Text.\n\n    ```\n    code\n    ```\nafter' },
  { name: 'a fence indented with a tab', text: '\t```py\nx = 1\n\t```\n' },
  { name: 'a longer closing fence', text: '```\nbody\n`````\nafter' },
  { name: 'a shorter fence inside a longer one', text: '````md\n```js\nx\n```\n````\n' },
  { name: 'tildes inside backticks', text: '```\n~~~\nstill code\n~~~\n```\n' },
  {
    name: 'an unclosed fence runs to the end',
    text: 'Start:\n```ts\nconst a = 1;\n\n# not a heading',
  },
  { name: 'three backticks on one line are inline code', text: 'Use ```a``` here.' },
  { name: 'a backtick in a backtick info string', text: '``` a`b\nnot code\n```' },
  { name: 'a backtick in a tilde info string', text: '~~~ a`b\ncode\n~~~' },
  { name: 'a closing fence with spaces after it', text: '```\ncode\n```   \nafter' },
  { name: 'a closing fence with words is no close', text: '```\ncode\n``` nope\nmore\n```\n' },
  { name: 'a fence straight after a line of text', text: 'Here:\n```json\n{"a": 1}\n```\nDone.' },
  { name: 'two fences in a row', text: '```a\n1\n```\n~~~b\n2\n~~~\n' },
  { name: 'an empty block', text: '```\n```\n' },
  { name: 'an empty unclosed block', text: 'x\n```' },
];

/** Leading whitespace up to `columns` wide (tabs to the next multiple of 4), as CommonMark strips it. */
function dedent(line: string, columns: number): string {
  let col = 0;
  let i = 0;
  while (i < line.length && col < columns) {
    const c = line[i];
    if (c === ' ') col++;
    else if (c === '\t') col += 4 - (col % 4);
    else break;
    i++;
  }
  return line.slice(i);
}

/** How many columns `indent` (spaces and tabs) takes. */
function width(indent: string): number {
  return [...indent].reduce((col, c) => (c === '\t' ? col + 4 - (col % 4) : col + 1), 0);
}

/**
 * The server's blocks: info string and body. The body loses the opening fence's indentation on
 * each line, as the page shows it (the server keeps the lines as written; where a block starts and
 * ends is what must agree).
 */
export function serverFences(text: string): SeenFence[] {
  const scan = scanFences(text);
  const blocks = [
    ...scan.closed.map((f) => ({ f, end: f.closeStart })),
    ...(scan.open ? [{ f: scan.open, end: text.length }] : []),
  ];
  return blocks.map(({ f, end }) => ({
    info: f.info,
    body: text
      .slice(f.bodyStart, end)
      .split('\n')
      .map((l) => dedent(l, width(f.indent)))
      .join('\n'),
  }));
}
