// Layer 2 of context management: once a turn is done, bulky tool output kept in history (search
// hits, image analyses, graph results) is replaced by a one-line record of what it was. The answer
// that used it stays, so the facts survive; the raw material does not ride along in every request.
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';

function pageRange(pages: number[]): string {
  if (pages.length === 0) return '';
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted.at(-1);
  return first === last ? ` p. ${first}` : ` pp. ${first}–${last}`;
}

/**
 * Knowledge evidence never stays in a thread's history, whatever its size: the next asker (or a
 * summary) may be someone the evidence's documents do not admit. The record names no source.
 */
const ALWAYS_CLEARED = new Set(['knowledge_search']);

/** "search_attachment: 5 hits in handbook.pdf pp. 41–44" and the like. */
export function describeToolOutput(name: string, content: string): string {
  if (name === 'search_attachment') {
    const hits = [
      ...content.matchAll(/^\[\d+\] ([^,(\n]+?)(?:, page (\d+))?(?:, section "[^"]*")? \(/gm),
    ];
    if (hits.length === 0)
      return `search_attachment: ${content.split('\n')[0]?.slice(0, 160) ?? 'no result'}`;
    const byFile = new Map<string, number[]>();
    for (const h of hits) {
      const file = (h[1] ?? '').trim();
      const pages = byFile.get(file) ?? [];
      if (h[2]) pages.push(Number(h[2]));
      byFile.set(file, pages);
    }
    const where = [...byFile].map(([file, pages]) => `${file}${pageRange(pages)}`).join(', ');
    return `search_attachment: ${hits.length} hit${hits.length === 1 ? '' : 's'} in ${where}`;
  }
  if (name === 'analyze_image') {
    const file = /file="([^"]+)"/.exec(content)?.[1];
    return `analyze_image: looked at ${file ?? 'an image'} (${content.length} characters of description; the answer above used it)`;
  }
  if (name === 'knowledge_search') {
    const n = [...content.matchAll(/^\[\d+\] /gm)].length;
    return n === 0
      ? 'knowledge_search: no evidence found'
      : `knowledge_search: ${n} passage${n === 1 ? '' : 's'} used for the answer above; not kept in the thread (search again to use them)`;
  }
  const firstLine =
    content
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 120) ?? '';
  return `${name}: ${content.length} characters of output, cleared after use${firstLine ? ` (began: ${firstLine})` : ''}`;
}

/**
 * Replaces tool results over `maxChars`, and every knowledge result, with their one-line record.
 * Returns a new array.
 */
export function cleanUpToolOutput(messages: BaseMessage[], maxChars: number): BaseMessage[] {
  return messages.map((m) => {
    if (!ToolMessage.isInstance(m)) return m;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    if (m.additional_kwargs?.cleaned === true) return m;
    // A private team-tool result (its server is `private`) never stays, and its record says nothing.
    const hidden = (m.artifact as { privateResult?: boolean } | undefined)?.privateResult === true;
    if (!hidden && content.length <= maxChars && !ALWAYS_CLEARED.has(m.name ?? '')) return m;
    return new ToolMessage({
      content: hidden
        ? `[${m.name ?? 'tool'}: a private result, used for an answer sent to its asker alone; not kept]`
        : `[${describeToolOutput(m.name ?? 'tool', content)}]`,
      tool_call_id: m.tool_call_id,
      ...(m.name ? { name: m.name } : {}),
      additional_kwargs: { ...m.additional_kwargs, cleaned: true },
    });
  });
}
