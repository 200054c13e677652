// Whether the model server schedules by priority (ARCHITECTURE.md, "Sharing the GPU"): the same
// one-token probe the bot makes with `sharing.priority: auto`. Off is not a fault — questions are
// then served first come, first served — so it is ✓ with how to turn it on.
import type { Config } from '../config/schema.ts';
import { probePriorityPolicy } from '../llm/gpu-share.ts';
import type { CheckContext, CheckResult } from '../model/check-result.ts';
import type { Served } from './llm-served.ts';

export const PRIORITY_FLAG = '--scheduling-policy priority';
const NAME = 'llm_text.priority';

export async function priorityCheck(
  config: Config,
  model: Served,
  ctx: CheckContext,
  base: string,
): Promise<CheckResult> {
  const setting = config.sharing.priority;
  if (setting === 'off') {
    return {
      name: NAME,
      status: 'ok',
      summary: `off (sharing.priority: off): the GPU serves questions first come, first served`,
    };
  }
  const found = await probePriorityPolicy({
    baseUrl: base,
    model: model.id,
    apiKey: config.secrets.llmApiKey,
    timeoutMs: ctx.stepTimeoutMs,
  });
  if (found === 'priority') {
    return {
      name: NAME,
      status: 'ok',
      summary: 'on: people waiting are served before summaries and reply-mode-all answers',
    };
  }
  if (found === 'fcfs') {
    return {
      name: NAME,
      status: setting === 'on' ? 'fail' : 'ok',
      summary:
        setting === 'on'
          ? `sharing.priority is on but the server refuses priorities`
          : `off on the server: to serve people waiting before background work, start vLLM with ${PRIORITY_FLAG}`,
      ...(setting === 'on'
        ? { fix: `Start vLLM with ${PRIORITY_FLAG}, or set sharing.priority to auto.` }
        : {}),
    };
  }
  return {
    name: NAME,
    status: 'warn',
    summary: 'the server did not say whether it schedules by priority (the probe failed)',
    fix: `Start vLLM with ${PRIORITY_FLAG} to serve people before background work; the bot probes again on its first question.`,
  };
}
