// A small Markdown renderer for model output that builds DOM nodes and text nodes only: nothing
// the model writes is ever parsed as HTML. Links keep only http(s) and mailto addresses.

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)\s*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;

// Code, bold, italic, links, bare URLs, and citations such as "report.pdf, page 3".
const INLINE = new RegExp(
  [
    /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.source,
    /\*\*(?=\S)([\s\S]+?)\*\*/.source,
    /(?<![\w])__(?=\S)([\s\S]+?)__(?![\w])/.source,
    /(?<![\w*])\*(?=[^\s*])([^*]+?)\*(?![\w*])/.source,
    /(?<![\w])_(?=[^\s_])([^_]+?)_(?![\w])/.source,
    /\[([^\]\n]+)\]\(([^()\s]+)\)/.source,
    /(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"])/.source,
    /([\w][\w.()-]*?\.[A-Za-z0-9]{1,5},\s*(?:page|p\.)\s*\d+(?:\s*[-–]\s*\d+)?|[\w][\w.()-]*?\.[A-Za-z0-9]{1,5},\s*section\s+"[^"\n]+")/
      .source,
  ].join('|'),
  'g',
);

function el(tag, ...children) {
  const node = document.createElement(tag);
  for (const c of children) node.append(c);
  return node;
}

function safeHref(href) {
  try {
    const url = new URL(href);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function link(text, href) {
  const safe = safeHref(href);
  if (!safe) return document.createTextNode(text);
  const a = el('a', text);
  a.href = safe;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  return a;
}

/** Inline Markdown → nodes appended to `parent`. */
function inline(parent, text) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    const [, , code, bold, bold2, em, em2, linkText, href, url, citation] = m;
    if (code !== undefined) parent.append(el('code', code.replace(/^ (.+) $/, '$1')));
    else if (bold !== undefined || bold2 !== undefined)
      inline(parent.appendChild(el('strong')), bold ?? bold2);
    else if (em !== undefined || em2 !== undefined) inline(parent.appendChild(el('em')), em ?? em2);
    else if (linkText !== undefined) parent.append(link(linkText, href));
    else if (url !== undefined) parent.append(link(url, url));
    else if (citation !== undefined) {
      const cite = el('cite', citation);
      cite.className = 'citation';
      parent.append(cite);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(text.slice(last));
}

function paragraph(lines) {
  const p = el('p');
  lines.forEach((line, i) => {
    if (i > 0) p.append(el('br'));
    inline(p, line);
  });
  return p;
}

/** Markdown → a DocumentFragment of safe nodes. An unclosed code fence runs to the end. */
export function renderMarkdown(markdown) {
  const out = document.createDocumentFragment();
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      const body = [];
      i++;
      while (
        i < lines.length &&
        !new RegExp(`^ {0,3}${fence[1][0]}{${fence[1].length},}\\s*$`).test(lines[i])
      )
        body.push(lines[i++]);
      i++;
      const code = el('code', body.join('\n'));
      if (fence[2]) code.dataset.language = fence[2];
      out.append(el('pre', code));
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const h = el(`h${Math.min(6, heading[1].length + 2)}`);
      inline(h, heading[2]);
      out.append(h);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.append(el('hr'));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && QUOTE.test(lines[i])) quoted.push(QUOTE.exec(lines[i++])[1]);
      out.append(el('blockquote', renderMarkdown(quoted.join('\n'))));
      continue;
    }
    const listKind = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : undefined;
    if (listKind) {
      const list = el(listKind === BULLET ? 'ul' : 'ol');
      const first = NUMBERED.exec(line);
      if (listKind === NUMBERED && first && first[1] !== '1') list.start = Number(first[1]);
      while (i < lines.length && listKind.test(lines[i])) {
        const m = listKind.exec(lines[i++]);
        const item = el('li');
        inline(item, m[m.length - 1]);
        list.append(item);
      }
      out.append(list);
      continue;
    }
    const para = [];
    while (
      i < lines.length &&
      lines[i].trim() !== '' &&
      !FENCE.test(lines[i]) &&
      !HEADING.test(lines[i]) &&
      !BULLET.test(lines[i]) &&
      !NUMBERED.test(lines[i]) &&
      !QUOTE.test(lines[i])
    )
      para.push(lines[i++]);
    out.append(paragraph(para));
  }
  return out;
}
