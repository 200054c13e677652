// assistant.threads.setSuggestedPrompts and assistant.threads.setTitle: what an AI app sets on a
// thread of its agent view, recorded on the thread for tests to read.
import {
  type ApiArgs,
  type ApiContext,
  type ApiResult,
  arr,
  fail,
  invalidArguments,
  type MethodSpec,
  present,
  str,
} from './context.ts';
import { PROVIDED_SCOPES } from './streaming.ts';

/** Slack's documented limit: up to four suggested prompts in a thread. */
const MAX_PROMPTS = 4;

function thread(args: ApiArgs, ctx: ApiContext) {
  if (!ctx.assistantStatusAvailable) {
    return fail('missing_scope', { needed: 'assistant:write', provided: PROVIDED_SCOPES });
  }
  const channel = present(args, 'channel_id');
  if (channel === undefined) return fail('channel_not_found', { detail: 'Invalid channel_id' });
  const threadTs = present(args, 'thread_ts');
  const t = threadTs === undefined ? undefined : ctx.assistantThreads.get(channel, threadTs);
  if (t === undefined) return fail('invalid_thread_ts', { detail: 'Thread not found' });
  return t;
}

function setSuggestedPrompts(args: ApiArgs, ctx: ApiContext): ApiResult {
  const t = thread(args, ctx);
  if ('ok' in t) return t;
  const prompts = arr(args, 'prompts');
  if (prompts === undefined || prompts.length === 0) {
    return invalidArguments('missing required field: prompts');
  }
  if (prompts.length > MAX_PROMPTS) {
    return invalidArguments(`prompts: must contain at most ${MAX_PROMPTS} items`);
  }
  const kept: { title: string; message: string }[] = [];
  for (const [i, p] of prompts.entries()) {
    const rec = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    if (typeof rec.title !== 'string' || rec.title === '') {
      return invalidArguments(`prompts[${i}]: missing required field: title`);
    }
    if (typeof rec.message !== 'string' || rec.message === '') {
      return invalidArguments(`prompts[${i}]: missing required field: message`);
    }
    kept.push({ title: rec.title, message: rec.message });
  }
  t.prompts = kept;
  const title = str(args, 'title');
  if (title !== undefined) t.promptsTitle = title;
  else delete t.promptsTitle;
  return { ok: true };
}

function setTitle(args: ApiArgs, ctx: ApiContext): ApiResult {
  const t = thread(args, ctx);
  if ('ok' in t) return t;
  const title = present(args, 'title');
  if (title === undefined) return invalidArguments('missing required field: title');
  t.titles.push(title);
  return { ok: true };
}

export const assistantMethods: Record<string, MethodSpec> = {
  'assistant.threads.setSuggestedPrompts': { token: 'bot', handle: setSuggestedPrompts },
  'assistant.threads.setTitle': { token: 'bot', handle: setTitle },
};
