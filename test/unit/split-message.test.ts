import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openFenceAt } from '../../src/text/fences.ts';
import { MIN_SPLIT_LIMIT, splitMessage } from '../../src/text/split-message.ts';

// --- Independent checks (deliberately not reusing the splitter's own scanner) -------------------

const FENCE_LINE = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/** True when every fence opened in `part` is closed again. */
function fencesBalanced(part: string): boolean {
  let open: string | null = null;
  for (const line of part.split('\n')) {
    const m = FENCE_LINE.exec(line);
    if (!m) continue;
    const marks = m[1] ?? '';
    const rest = m[2] ?? '';
    if (open === null) {
      if (!(marks.startsWith('`') && rest.includes('`'))) open = marks;
    } else if (marks[0] === open[0] && marks.length >= open.length && rest.trim() === '') {
      open = null;
    }
  }
  return open === null;
}

/** Non-whitespace content with fence lines removed, so added fences do not count. */
function content(text: string): string {
  return text
    .split('\n')
    .filter((line) => !FENCE_LINE.test(line))
    .join('')
    .replace(/\s+/g, '');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function assertWellFormed(text: string, limit: number, parts: string[]): void {
  assert.ok(parts.length > 0, 'no parts');
  for (const [i, part] of parts.entries()) {
    assert.ok(part.length <= limit, `part ${i} has ${part.length} > ${limit} code units`);
    assert.ok(part.trim().length > 0, `part ${i} is empty`);
    assert.equal(part, part.trimEnd(), `part ${i} keeps trailing whitespace`);
    assert.ok(fencesBalanced(part), `part ${i} has an unbalanced fence:\n${part}`);
    assert.doesNotMatch(part, LONE_SURROGATE, `part ${i} splits a surrogate pair`);
  }
  assert.equal(content(parts.join('\n')), content(text), 'content lost or reordered');
}

// --- Fixtures ----------------------------------------------------------------------------------

function sentences(count: number, start = 0): string {
  return Array.from(
    { length: count },
    (_, i) => `Step ${start + i} checks the cache before it calls the model again.`,
  ).join(' ');
}

/** A ~5,000 character answer whose python block alone is bigger than 2,000 and 3,000 limits. */
function longPythonAnswer(): string {
  const code = ['```python'];
  for (let i = 0; code.join('\n').length < 3_900; i++) {
    if (i % 8 === 7) code.push('');
    else code.push(`    total_${i} = weigh(items[${i}], "**not bold**")  # keep ${i} & <go>`);
  }
  code.push('```');
  const text = [
    '## How to batch the requests',
    '',
    sentences(10),
    '',
    code.join('\n'),
    '',
    sentences(8, 100),
    '',
    '- check the **limits**',
    '  - nested detail',
    '- done',
  ].join('\n');
  assert.ok(text.length >= 5_000 && text.length < 5_600, `fixture is ${text.length}`);
  return text;
}

// --- Tests -------------------------------------------------------------------------------------

describe('splitMessage', () => {
  test('rejects limits too small to hold a fence', () => {
    assert.equal(MIN_SPLIT_LIMIT, 20);
    assert.throws(() => splitMessage('hello', 19), RangeError);
    assert.throws(() => splitMessage('hello', Number.NaN), RangeError);
    assert.deepEqual(splitMessage('hello', 20), ['hello']);
  });

  test('returns short text as one trimmed part, and nothing for blank text', () => {
    assert.deepEqual(splitMessage('\n\n  Hello **world**.  \n\n', 100), ['  Hello **world**.']);
    assert.deepEqual(splitMessage('', 100), []);
    assert.deepEqual(splitMessage(' \n\t\n ', 100), []);
  });

  test('prefers a blank line between paragraphs over a later line break', () => {
    const text = `${'a'.repeat(40)}\n\n${'b'.repeat(30)}\n${'c'.repeat(30)}`;
    assert.deepEqual(splitMessage(text, 80), [
      'a'.repeat(40),
      `${'b'.repeat(30)}\n${'c'.repeat(30)}`,
    ]);
  });

  test('falls back to a line break, then a sentence end, then a space', () => {
    assert.deepEqual(splitMessage('one two three\nfour five six', 20), [
      'one two three',
      'four five six',
    ]);
    assert.deepEqual(splitMessage('First one ends. Second goes on and on', 30), [
      'First one ends.',
      'Second goes on and on',
    ]);
    assert.deepEqual(splitMessage('alpha beta gamma delta epsilon', 20), [
      'alpha beta gamma',
      'delta epsilon',
    ]);
  });

  test('treats CJK full stops as sentence ends', () => {
    const text = `${'가'.repeat(15)}。${'나'.repeat(15)}`;
    assert.deepEqual(splitMessage(text, 25), [`${'가'.repeat(15)}。`, '나'.repeat(15)]);
  });

  test('does not send a short intro line as a message of its own', () => {
    const text = `Sure!\n\n${sentences(6)}`;
    const parts = splitMessage(text, 200);
    assert.ok(parts[0]?.startsWith('Sure!\n\nStep 0'), parts[0]);
    assertWellFormed(text, 200, parts);
  });

  test('hard-splits a word longer than the limit without splitting surrogate pairs', () => {
    const word = '😀'.repeat(30); // 60 code units, no break anywhere
    const parts = splitMessage(word, 21);
    assert.deepEqual(
      parts.map((p) => p.length),
      [20, 20, 20],
    );
    assert.equal(parts.join(''), word);
    assertWellFormed(word, 21, parts);
  });

  test('keeps a code block that fits whole, moving it to the next part', () => {
    const code = '```ts\nconst a = 1;\n\nconst b = 2;\n```';
    const text = `${'Intro text here. '.repeat(4).trim()}\n${code}\nAfter.`;
    const parts = splitMessage(text, 80);
    assert.ok(
      parts.some((p) => p.includes(code)),
      `block was split: ${JSON.stringify(parts)}`,
    );
    assertWellFormed(text, 80, parts);
  });

  for (const limit of [3_000, 2_000]) {
    test(`splits a 5,000-char answer with a long python block at ${limit}`, () => {
      const text = longPythonAnswer();
      const parts = splitMessage(text, limit);
      assertWellFormed(text, limit, parts);
      assert.ok(parts.length >= 2);
      // The block is too big for one part, so it is closed and reopened with its info string.
      const reopened = parts.slice(1).filter((p) => p.startsWith('```python\n'));
      assert.ok(reopened.length >= 1, 'the python block was never reopened');
      // A reopened block continues exactly where the previous part closed it.
      for (const [i, part] of parts.entries()) {
        if (i === 0 || !part.startsWith('```python\n')) continue;
        const prev = parts[i - 1] ?? '';
        assert.ok(prev.endsWith('\n```'), 'previous part does not close the block');
        const lastLine = prev.split('\n').at(-2) ?? '';
        const firstLine = part.split('\n')[1] ?? '';
        const at = text.indexOf(lastLine);
        assert.ok(at !== -1 && text.indexOf(firstLine, at) > at);
      }
      // `**` inside the code is content, not formatting, and survives untouched.
      assert.equal(
        parts.join('\n').split('"**not bold**"').length,
        text.split('"**not bold**"').length,
      );
    });
  }

  test('closes and reopens tilde and long backtick fences with their own markers', () => {
    const body = Array.from({ length: 12 }, (_, i) => `line ${i} \`\`\` not a fence`).join('\n');
    for (const [open, close] of [
      ['~~~sh', '~~~'],
      ['````md', '````'],
    ] as const) {
      const text = `${open}\n${body}\n${close}`;
      const parts = splitMessage(text, 120);
      assert.ok(parts.length > 1);
      for (const part of parts) {
        assert.ok(part.startsWith(`${open}\n`), part);
        assert.ok(part.endsWith(`\n${close}`), part);
      }
      assertWellFormed(text, 120, parts);
    }
  });

  test('keeps the indentation of a fence nested in a list item', () => {
    const code = Array.from({ length: 10 }, (_, i) => `   echo step-${i}`).join('\n');
    const text = `1. Run:\n   \`\`\`bash\n${code}\n   \`\`\`\n2. Done.`;
    const parts = splitMessage(text, 90);
    assertWellFormed(text, 90, parts);
    assert.ok(parts.slice(1).some((p) => p.startsWith('   ```bash\n')));
  });

  test('closes a fence the model left open', () => {
    const text = 'Here:\n\n```js\nconsole.log(1);';
    assert.deepEqual(splitMessage(text, 100), ['Here:\n\n```js\nconsole.log(1);\n```']);
    const long = `\`\`\`js\n${'x();\n'.repeat(40)}`;
    assertWellFormed(long, 50, splitMessage(long, 50));
  });

  test('handles CRLF line endings', () => {
    const text = `Intro line.\r\n\r\n\`\`\`ts\r\n${'const x = 1;\r\n'.repeat(12)}\`\`\`\r\nEnd.`;
    const parts = splitMessage(text, 80);
    assertWellFormed(
      text.replace(/\r/g, ''),
      80,
      parts.map((p) => p.replace(/\r/g, '')),
    );
    assert.ok(parts.slice(1).some((p) => p.startsWith('```ts\n')));
  });

  test('does not treat inline triple backticks as a fence', () => {
    const text = `Use \`\`\`a\`\`\` inline. ${sentences(3)}`;
    assertWellFormed(text, 60, splitMessage(text, 60));
  });

  test('holds its invariants on generated answers at many limits', () => {
    let seed = 0x5eed;
    const random = (): number => {
      // mulberry32: small, deterministic, good enough for test data.
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const words = [
      'the',
      'model',
      '한국어',
      '답변입니다.',
      '😀',
      'cache,',
      'end.',
      'why?',
      '**bold**',
    ];
    const word = (): string =>
      random() < 0.03 ? 'x'.repeat(20 + Math.floor(random() * 60)) : pick(words);
    const line = (): string =>
      Array.from({ length: 1 + Math.floor(random() * 14) }, word).join(' ');

    for (let round = 0; round < 60; round++) {
      const limit = pick([20, 41, 97, 300, 1_000]);
      const blocks: string[] = [];
      const codeBlocks: string[] = [];
      for (let b = 0; b < 2 + Math.floor(random() * 8); b++) {
        const kind = random();
        if (kind < 0.3) {
          const marks = limit >= 40 && random() < 0.3 ? pick(['````', '~~~']) : '```';
          const lines = Array.from({ length: 1 + Math.floor(random() * 20) }, () =>
            random() < 0.15 ? '' : `  ${line()}`,
          );
          const block = `${marks}${pick(['', 'ts', 'py'])}\n${lines.join('\n')}\n${marks}`;
          blocks.push(block);
          codeBlocks.push(block);
        } else if (kind < 0.5) {
          blocks.push(
            Array.from({ length: 1 + Math.floor(random() * 5) }, () => `- ${line()}`).join('\n'),
          );
        } else {
          blocks.push(Array.from({ length: 1 + Math.floor(random() * 4) }, line).join('\n'));
        }
      }
      const text = blocks.join(random() < 0.5 ? '\n\n' : '\n');
      const parts = splitMessage(text, limit);
      assertWellFormed(text, limit, parts);
      for (const block of codeBlocks) {
        if (block.length <= limit) {
          assert.ok(
            parts.some((p) => p.includes(block)),
            `a block of ${block.length} was split at ${limit}`,
          );
        }
      }
    }
  });
});

describe('openFenceAt', () => {
  test('reports the fence a partial answer is inside', () => {
    assert.equal(openFenceAt('Text\n```ts\nconst a'), '```ts');
    assert.equal(openFenceAt('Text\n~~~\nx\n~~~\n'), null);
    assert.equal(openFenceAt('````md\n```\nstill inside\n```'), '````md');
    assert.equal(openFenceAt('inline ```code``` only'), null);
  });
});
