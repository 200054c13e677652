import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { isSummaryMessage, summaryText } from './summary-message.ts';

/** Splits history into turns: a person's message and everything the bot did until the next one. */
export function splitTurns(history: BaseMessage[]): BaseMessage[][] {
  const turns: BaseMessage[][] = [];
  for (const m of history) {
    if (HumanMessage.isInstance(m) || turns.length === 0) turns.push([m]);
    else turns.at(-1)?.push(m);
  }
  return turns;
}

function text(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** Old turns as a plain transcript for the summariser, tool output shortened. */
export function transcript(messages: BaseMessage[], maxToolChars = 2000): string {
  const lines: string[] = [];
  for (const m of messages) {
    const summary = summaryText(m);
    if (summary !== undefined) {
      lines.push(`Earlier summary:\n${summary}`);
    } else if (isSummaryMessage(m)) {
      // the acknowledgement after a summary carries nothing
    } else if (HumanMessage.isInstance(m)) {
      lines.push(`Person: ${text(m.content)}`);
    } else if (AIMessage.isInstance(m)) {
      const calls = (m.tool_calls ?? []).map((c) => `${c.name}(${JSON.stringify(c.args)})`);
      const said = text(m.content).trim();
      if (said) lines.push(`Assistant: ${said}`);
      if (calls.length) lines.push(`Assistant called: ${calls.join(', ')}`);
    } else if (ToolMessage.isInstance(m)) {
      const out = text(m.content);
      lines.push(
        `Tool ${m.name ?? ''} returned: ${out.length > maxToolChars ? `${out.slice(0, maxToolChars)} …[${out.length - maxToolChars} more characters]` : out}`,
      );
    }
  }
  return lines.join('\n');
}
