// The words of an approval card and of its outcomes (tool-approval-flow.ts), in Markdown: the
// renderer neutralises them like model output, so arguments cannot ping anyone.

/** Arguments as the approver reads them: compact JSON, each value cut, the whole cut. */
export function summariseArgs(args: Record<string, unknown>, max = 600): string {
  const short = Object.fromEntries(
    Object.entries(args).map(([k, v]) => {
      const s = typeof v === 'string' ? v : JSON.stringify(v);
      return [k, s !== undefined && s.length > 200 ? `${s.slice(0, 199)}…` : v];
    }),
  );
  const all = JSON.stringify(short);
  return all.length > max ? `${all.slice(0, max - 1)}…` : all;
}

/** A code span that its own text cannot close. */
function code(text: string): string {
  return `\`${text.replace(/`/g, 'ˋ')}\``;
}

export const approvalTexts = {
  title: 'Approve a tool call?',
  question: (asker: string) =>
    `I want to call a team tool to answer <@${asker}>. Nothing runs until someone approves.`,
  server: 'Server',
  tool: 'Tool',
  args: 'Arguments',
  context: (until: number) =>
    `The asker or an approver may decide · expires ${new Date(until).toISOString().slice(11, 16)} UTC`,
  once: 'Approve once',
  always: 'Always in this channel',
  deny: 'Deny',
  code,
  approved: (tool: string, by: string, always: boolean) =>
    `✅ ${code(tool)} approved by <@${by}>${always ? ' (always in this channel)' : ' (once)'}.`,
  denied: (tool: string, by: string) => `🚫 ${code(tool)} was denied by <@${by}>; it did not run.`,
  expired: (tool: string) => `⌛ Nobody approved ${code(tool)} in time; it did not run.`,
  refusal: 'Only the person who asked, or an approver named in the configuration, may decide.',
  gone: 'This approval has already been decided or has expired.',
  /** What the model reads while the call waits (the turn ends; the click resumes it). */
  waiting: (tool: string) =>
    `The call to ${tool} needs a person's approval; an approval card was posted in the thread. It has NOT run. Do not call it again now: tell the person briefly that it waits for approval.`,
  /** The resuming turn's message: the core's words, on behalf of the asker. */
  resumeApproved: (tool: string, args: string) =>
    `(Approval received: the call ${tool} with arguments ${args} was approved. Make exactly that call now and finish answering my earlier request.)`,
  resumeRefused: (tool: string, why: 'denied' | 'expired') =>
    `(The call ${tool} was not approved (${why === 'denied' ? 'denied' : 'nobody approved it in time'}). It did not run: do not call it; tell me what you can without it.)`,
  noSurface: 'Approvals need buttons, which this place cannot show; the call did not run.',
};
