// A model that answers each question by its tag ("q-…"), streamed slowly enough that a process
// can be killed mid-answer; a complete answer ends with END-<tag>.
import type { RequestBody, ScriptedReply } from '../emulators/openai/types.ts';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** The tag of the question a request answers: the last tag in its last user message. */
export function lastQuestionTag(body: RequestBody): string | undefined {
  const messages = (body.messages ?? []) as { role?: string; content?: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  const tags = [...textOf(user?.content).matchAll(/\bq-[\w-]+/g)].map((m) => m[0]);
  return tags.at(-1);
}

export function taggedAnswer(body: RequestBody): ScriptedReply {
  const tag = lastQuestionTag(body) ?? 'q-none';
  const words = Array.from({ length: 24 }, (_, i) => `word${i}`).join(' ');
  return { content: `Answer for ${tag}: ${words} END-${tag}`, chunkDelayMs: 20 };
}
