import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.ts';
import { escapeBroadcasts } from '../../adapters/slack/slack-format.ts';
import { splitMessage } from '../../src/text/split-message.ts';

const ZWSP = '\u200b';

type Case = { name: string; md: string; mrkdwn: string };

// Text for the places without a `markdown` block (modals, context lines, fields, slash-command
// replies): shaped like what the bot and models write.
const CASES: Case[] = [
  {
    name: 'headings of any level become bold lines',
    md: '# Overview\n### Step **2**: install ###',
    mrkdwn: '*Overview*\n*Step 2: install*',
  },
  {
    name: 'bold, italic, strike and bold-italic',
    md: 'Use **bold**, __also bold__, *italic*, _italic_, ~~gone~~ and ***both***.',
    mrkdwn: 'Use *bold*, *also bold*, _italic_, _italic_, ~gone~ and *_both_*.',
  },
  {
    name: 'italic nested in bold',
    md: '**Note: _really_ important**',
    mrkdwn: '*Note: _really_ important*',
  },
  {
    name: 'snake_case and arithmetic are not emphasis',
    md: 'Set max_new_tokens to 2 * 3 * 4.',
    mrkdwn: 'Set max_new_tokens to 2 * 3 * 4.',
  },
  {
    name: 'Korean with bold keeps its styling next to particles',
    md: '**한국어**는 *정말* 어렵지만 **재미있습니다**.',
    mrkdwn: `*한국어*${ZWSP}는 _정말_ 어렵지만 *재미있습니다*.`,
  },
  {
    name: 'links, autolinks and images',
    md: 'See [the guide](https://example.com/guide?a=1&b=2), <https://vllm.ai> and ![arch](https://img.example.com/a.png).',
    mrkdwn:
      'See <https://example.com/guide?a=1&amp;b=2|the guide>, <https://vllm.ai> and <https://img.example.com/a.png|arch>.',
  },
  {
    name: 'link labels lose emphasis; urls with parentheses survive',
    md: '[**Ollama** docs](https://en.wikipedia.org/wiki/Ollama_(software))',
    mrkdwn: '<https://en.wikipedia.org/wiki/Ollama_(software)|Ollama docs>',
  },
  {
    name: 'a link whose text is its url, and a relative link',
    md: '[https://a.dev](https://a.dev) and [config](./config.yaml)',
    mrkdwn: '<https://a.dev> and config (./config.yaml)',
  },
  {
    name: 'bare urls are left for Slack to link, without emphasis inside',
    md: 'Docs at https://example.com/_private_/page?a=1&b=*2* now',
    mrkdwn: 'Docs at https://example.com/_private_/page?a=1&amp;b=*2* now',
  },
  {
    name: 'nested bullet lists keep their indentation',
    md: '- first\n  - nested **bold**\n    * deeper\n+ plus',
    mrkdwn: '• first\n  • nested *bold*\n    • deeper\n• plus',
  },
  {
    name: 'numbered lists are kept',
    md: '1. Pull the model\n2) Start *vLLM*\n   1. with `--tp 2`',
    mrkdwn: '1. Pull the model\n2) Start _vLLM_\n   1. with `--tp 2`',
  },
  {
    name: 'quotes are kept and nesting collapses',
    md: '> **Warning:** this deletes data\n> > really',
    mrkdwn: '> *Warning:* this deletes data\n> really',
  },
  {
    name: 'inline code is untouched apart from escaping',
    md: 'Run `a **b** _c_ [d](e) && x < y` now',
    mrkdwn: 'Run `a **b** _c_ [d](e) &amp;&amp; x &lt; y` now',
  },
  {
    name: 'fenced code is untouched, loses its language, and is escaped',
    md: '```python\nif a < b and c > d:\n    print("**not bold** & _not italic_")\n# - not a list\n```',
    mrkdwn:
      '```\nif a &lt; b and c &gt; d:\n    print("**not bold** &amp; _not italic_")\n# - not a list\n```',
  },
  {
    name: 'tilde fences and fences nested in lists',
    md: '1. Install:\n   ~~~bash\n   pip install vllm\n   ~~~\n2. Done',
    mrkdwn: '1. Install:\n```\npip install vllm\n```\n2. Done',
  },
  {
    name: 'an unclosed fence is closed',
    md: 'Start:\n```js\nconsole.log(1)',
    mrkdwn: 'Start:\n```\nconsole.log(1)\n```',
  },
  {
    name: 'ampersands and angle brackets in text are escaped once',
    md: 'R&D <team> & Tom &amp; Jerry &lt;3 &copy;',
    mrkdwn: 'R&amp;D &lt;team&gt; &amp; Tom &amp; Jerry &lt;3 &amp;copy;',
  },
  {
    name: 'user and channel references survive, broadcasts do not',
    md: 'Thanks <@U0123ABCD>, see <#C0456EFGH|general>. <!here>',
    mrkdwn: 'Thanks <@U0123ABCD>, see <#C0456EFGH|general>. &lt;!here&gt;',
  },
  {
    name: 'backslash escapes and raw html',
    md: 'A literal \\*star\\* and <br> tag',
    mrkdwn: 'A literal *star* and &lt;br&gt; tag',
  },
];

describe('markdownToMrkdwn', () => {
  for (const { name, md, mrkdwn } of CASES) {
    test(name, () => {
      assert.equal(markdownToMrkdwn(md), mrkdwn);
    });
  }

  test('converts a whole answer and leaves the code block byte-for-byte', () => {
    const code = 'def f(x):\n    return x ** 2  # **not bold**, _not italic_\n\nprint(f(3))';
    const md = [
      '## Summary',
      '',
      'You can **cache** the result:',
      '',
      '```python',
      code,
      '```',
      '',
      '- works with *any* model',
      '  - even [small ones](https://hf.co/models)',
    ].join('\n');
    const out = markdownToMrkdwn(md);
    assert.equal(
      out,
      [
        '*Summary*',
        '',
        'You can *cache* the result:',
        '',
        '```',
        code,
        '```',
        '',
        '• works with _any_ model',
        '  • even <https://hf.co/models|small ones>',
      ].join('\n'),
    );
  });

  test('never double-escapes, wherever the ampersand is', () => {
    const out = markdownToMrkdwn('a & b `c & d`\n```\ne & f\n```');
    assert.doesNotMatch(out, /&amp;amp;/);
    assert.equal(out.match(/&amp;/g)?.length, 3);
    assert.doesNotMatch(out.replace(/&(amp|lt|gt);/g, ''), /&/);
  });

  test('output can be split for Slack with balanced code blocks', () => {
    const lines = Array.from({ length: 120 }, (_, i) => `    row_${i} = a[${i}] & b  # **x**`);
    const md = `Here you go:\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nDone.`;
    const parts = splitMessage(markdownToMrkdwn(md), 2_000);
    assert.ok(parts.length > 1);
    for (const part of parts) {
      assert.ok(part.length <= 2_000);
      assert.equal((part.match(/^```/gm) ?? []).length % 2, 0, part);
    }
  });
});

describe('escapeBroadcasts', () => {
  const cases: [string, string][] = [
    ['<!here> deploy done', '＠here deploy done'],
    ['<!channel> and <!everyone> and <!group>', '＠channel and ＠everyone and ＠group'],
    ['<!here|@here> and <!channel|channel>', '＠here and ＠channel'],
    ['ping <!subteam^S0123ABC|@oncall> or <!subteam^S0123ABC>', 'ping ＠oncall or ＠usergroup'],
    ['&lt;!here&gt; escaped', '＠here escaped'],
    ['hey @here, @Channel and @everyone!', 'hey ＠here, ＠Channel and ＠everyone!'],
    ['`@here` inside code too', '`＠here` inside code too'],
    ['mail ops@here.com or see @heretic', 'mail ops@here.com or see @heretic'],
    ['thanks <@U0123ABCD> and <@W99|bob>', 'thanks <@U0123ABCD> and <@W99|bob>'],
    [
      '<#C0123|general> <!date^1392734382^{date}|Feb 18>',
      '<#C0123|general> <!date^1392734382^{date}|Feb 18>',
    ],
    ['Tom & Jerry <b>', 'Tom & Jerry <b>'],
  ];
  for (const [input, expected] of cases) {
    test(`neutralises ${JSON.stringify(input)}`, () => {
      assert.equal(escapeBroadcasts(input), expected);
    });
  }

  test('is idempotent and composes with markdownToMrkdwn', () => {
    const md = '**Heads up** @channel: <!here> the *model* is back & <@U1> fixed it';
    const once = escapeBroadcasts(markdownToMrkdwn(md));
    assert.equal(once, '*Heads up* ＠channel: ＠here the _model_ is back &amp; <@U1> fixed it');
    assert.equal(escapeBroadcasts(once), once);
    assert.doesNotMatch(once, /<!|(?<![\p{L}\p{N}])@(here|channel|everyone)/iu);
  });
});
