// A scripted model for the file-search tests through the whole bot.
import type { ScriptedReply } from '../emulators/openai/index.ts';

type Req = { messages: { role: string; content: unknown }[] };

/** The model searches once, then answers with what the tool returned. */
export function searchThenAnswer(query: string) {
  return (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
    return { toolCalls: [{ name: 'search_attachment', arguments: { query } }] };
  };
}
