// The probes that cost a little model time (not at start-up by default): one tool call as the
// agent asks for it, and one small image to the vision model.
import sharp from 'sharp';
import type { Config } from '../config/schema.ts';
import { type CheckContext, type CheckResult, reasonOf } from '../model/check-result.ts';
import { baseUrl, HttpError, type Served, send, serverMessage } from './llm-served.ts';

export const TOOL_FLAGS = '--enable-auto-tool-choice --tool-call-parser <parser>';
const PARSERS = 'hermes for Qwen and Hermes models, llama3_json for Llama 3.x, mistral for Mistral';

const PROBE_TOOL = 'threadmind_doctor_probe';

/** Tool calling as the agent uses it: tools offered, `tool_choice` auto. */
export async function toolCallCheck(
  config: Config,
  model: Served,
  ctx: CheckContext,
  base = baseUrl(config, 'text'),
) {
  const name = 'llm_text.tool_calls';
  const fix = `Start vLLM with ${TOOL_FLAGS} (${PARSERS}); without them the bot answers but never searches files or the knowledge graph.`;
  let body: {
    choices?: {
      message?: { content?: unknown; tool_calls?: unknown[] };
      finish_reason?: unknown;
    }[];
  };
  try {
    body = (await send(config, `${base.replace(/\/+$/, '')}/chat/completions`, ctx, {
      model: model.id,
      messages: [
        {
          role: 'user',
          content: `This is a connectivity test. Call the ${PROBE_TOOL} function with {"ok": true} and write nothing else.`,
        },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: PROBE_TOOL,
            description: 'Confirms that tool calling works.',
            parameters: {
              type: 'object',
              properties: { ok: { type: 'boolean' } },
              required: ['ok'],
            },
          },
        },
      ],
      // "required" or a named function would be served through structured outputs even without
      // the flags below, so only "auto" (what the agent sends) shows that tool calling is on.
      tool_choice: 'auto',
      max_tokens: 256,
      temperature: 0,
    })) as typeof body;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      return {
        name,
        status: 'fail',
        summary: `the server refused a request with tools: ${serverMessage(err)}`,
        fix,
      } satisfies CheckResult;
    }
    return {
      name,
      status: 'fail',
      summary: `the tool-call probe failed: ${reasonOf(err)}`,
      fix: 'Check the model server’s log.',
    } satisfies CheckResult;
  }
  const choice = body.choices?.[0];
  const calls = choice?.message?.tool_calls ?? [];
  if (calls.length > 0) {
    return {
      name,
      status: 'ok',
      summary: 'the model answered a tool request with a tool call',
    } satisfies CheckResult;
  }
  const text = typeof choice?.message?.content === 'string' ? choice.message.content : '';
  const wroteOne = text.includes(PROBE_TOOL);
  return {
    name,
    status: 'fail',
    summary: wroteOne
      ? 'the model wrote a tool call as plain text and the server did not parse it: tool calling is off or --tool-call-parser does not match the model'
      : `the server answered a tool request with plain text and no tool call (finish_reason ${String(choice?.finish_reason)})`,
    fix,
  } satisfies CheckResult;
}

/** A 16×16 PNG, made here so nothing is read from disk. */
async function tinyPng(): Promise<Buffer> {
  return sharp({
    create: { width: 16, height: 16, channels: 3, background: { r: 220, g: 40, b: 40 } },
  })
    .png()
    .toBuffer();
}

export async function imageCheck(config: Config, model: Served, ctx: CheckContext) {
  const name = 'llm_vision.image';
  const png = await tinyPng();
  try {
    await send(config, `${baseUrl(config, 'vision')}/chat/completions`, ctx, {
      model: model.id,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour is this image? One word.' },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
            },
          ],
        },
      ],
      max_tokens: 8,
      temperature: 0,
    });
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      return {
        name,
        status: 'fail',
        summary: `the vision endpoint refused an image: ${serverMessage(err)}`,
        fix: `Point LLM_VISION_BASE_URL at a server running a vision-language model (e.g. vllm serve Qwen/Qwen2.5-VL-7B-Instruct); ${model.id} looks like a text-only model.`,
      } satisfies CheckResult;
    }
    return {
      name,
      status: 'fail',
      summary: `the image probe failed: ${reasonOf(err)}`,
      fix: 'Check the vision server’s log.',
    } satisfies CheckResult;
  }
  return {
    name,
    status: 'ok',
    summary: `${model.id} accepted a small image`,
  } satisfies CheckResult;
}
