// The bot's Markdown on the page: markdown-it parses (HTML off, links only to http(s) and mailto),
// and the tokens become DOM nodes and text nodes: nothing the model writes is parsed as HTML.
// Fenced code follows the server's rule (src/text/fences.ts), so a block the server splits or
// streams as code is code here too; test/web/fence-contract.test.ts feeds both the same fences.
import markdownit from './markdown-it.js';

const SCHEMES = ['http:', 'https:', 'mailto:'];

// As src/text/fences.ts: any indentation, backticks or tildes, the rest of the line is the info
// string (no backtick in it after backticks); closed by a line of only the same character, at
// least as many; unclosed, the block runs to the end.
const OPEN_FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const CLOSE_FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

// Citations such as "report.pdf, page 3" or 'notes.docx, section "Plan"'.
const CITATION =
  /[\w][\w.()-]*?\.[A-Za-z0-9]{1,5},\s*(?:page|p\.)\s*\d+(?:\s*[-–]\s*\d+)?|[\w][\w.()-]*?\.[A-Za-z0-9]{1,5},\s*section\s+"[^"\n]+"/g;

function fence(state, startLine, endLine, silent) {
  const lineAt = (n) => state.src.slice(state.bMarks[n], state.eMarks[n]);
  const open = OPEN_FENCE.exec(lineAt(startLine));
  if (!open) return false;
  const [, , marks, rest] = open;
  if (marks[0] === '`' && rest.includes('`')) return false;
  if (silent) return true;
  let next = startLine + 1;
  let closed = false;
  for (; next < endLine; next++) {
    const blank = state.bMarks[next] + state.tShift[next] >= state.eMarks[next];
    // A less indented line ends the list item the block is in (markdown-it's own rule).
    if (!blank && state.sCount[next] < state.blkIndent) break;
    const close = CLOSE_FENCE.exec(lineAt(next));
    if (close && close[1][0] === marks[0] && close[1].length >= marks.length) {
      closed = true;
      break;
    }
  }
  state.line = next + (closed ? 1 : 0);
  const token = state.push('fence', 'code', 0);
  token.info = rest.trim();
  token.markup = marks;
  token.content = state.getLines(startLine + 1, next, state.sCount[startLine], true);
  token.map = [startLine, state.line];
  return true;
}

/** The page's parser (exported for the fence contract test, which runs it in Node). */
export const markdown = markdownit({ html: false, linkify: true, typographer: false });
markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
markdown.validateLink = (url) => {
  try {
    return SCHEMES.includes(new URL(url).protocol);
  } catch {
    return false;
  }
};
// Indented code is not code on the server (nor was it on this page): only fences are.
markdown.disable('code');
markdown.block.ruler.at('fence', fence, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });

const BLOCK_TAGS = new Set(['p', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr']);
const INLINE_TAGS = new Set(['strong', 'em', 's', 'th', 'td']);

/** The element an opening token stands for; headings start at h3 (the page has h1 and h2). */
function opened(t) {
  if (t.type === 'heading_open')
    return document.createElement(`h${Math.min(6, Number(t.tag.slice(1)) + 2)}`);
  if (t.type === 'link_open') {
    const a = document.createElement('a');
    a.href = t.attrGet('href') ?? '';
    a.rel = 'noopener noreferrer nofollow';
    a.target = '_blank';
    return a;
  }
  const node = document.createElement(
    BLOCK_TAGS.has(t.tag) || INLINE_TAGS.has(t.tag) ? t.tag : 'span',
  );
  const start = t.type === 'ordered_list_open' ? t.attrGet('start') : null;
  if (start) node.setAttribute('start', start);
  return node;
}

/** Text with its citations marked. */
function text(parent, s) {
  let last = 0;
  for (const m of s.matchAll(CITATION)) {
    if (m.index > last) parent.append(s.slice(last, m.index));
    const cite = document.createElement('cite');
    cite.className = 'citation';
    cite.textContent = m[0];
    parent.append(cite);
    last = m.index + m[0].length;
  }
  if (last < s.length) parent.append(s.slice(last));
}

function code(t) {
  const c = document.createElement('code');
  c.textContent = t.content.replace(/\n$/, '');
  const language = t.info.split(/\s+/)[0];
  if (language) c.dataset.language = language;
  const pre = document.createElement('pre');
  pre.append(c);
  return pre;
}

/** Appends the nodes for `tokens` (a block list or an inline token's children) to `root`. */
function build(root, tokens) {
  const stack = [root];
  for (const t of tokens) {
    const top = stack[stack.length - 1];
    // The paragraphs of a tight list item are hidden: their text goes in the item itself.
    if (t.hidden) continue;
    if (t.nesting === 1) stack.push(top.appendChild(opened(t)));
    else if (t.nesting === -1) {
      if (stack.length > 1) stack.pop();
    } else if (t.type === 'inline') build(top, t.children ?? []);
    else if (t.type === 'text') text(top, t.content);
    else if (t.type === 'code_inline')
      top.append(Object.assign(document.createElement('code'), { textContent: t.content }));
    else if (t.type === 'softbreak' || t.type === 'hardbreak')
      top.append(document.createElement('br'));
    else if (t.type === 'fence' || t.type === 'code_block') top.append(code(t));
    else if (t.type === 'hr') top.append(document.createElement('hr'));
    else if (t.type === 'image') top.append(t.content);
    else if (t.content) top.append(t.content);
  }
}

/** Markdown → a DocumentFragment of safe nodes. An unclosed code fence runs to the end. */
export function renderMarkdown(source) {
  const out = document.createDocumentFragment();
  build(out, markdown.parse(source, {}));
  return out;
}
