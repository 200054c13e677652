// The approval contract's driver on the web chat: its one person (who asks, decides and changes
// the settings) posts and presses through the page's API; the MCP server is real. The web chat has
// one channel and nobody else, so the contract leaves out "someone else", "another channel" and
// groups. A press on a card whose buttons are gone sends the reference it first carried.
import { randomUUID } from 'node:crypto';
import type { WebMessage } from '../../adapters/web/transcript.ts';
import { WEB_PERSON } from '../../adapters/web/web-port.ts';
import { startApprovalHarness } from '../support/approval-harness.ts';
import { type ThreadView, WebChatClient } from '../support/web-client.ts';
import type {
  ApprovalDriver,
  Decision,
  MakeApprovalDriver,
  SeenCard,
  WaitingCall,
} from './approval-driver.ts';
import { contractOverrides } from './config.ts';
import { CoreWatch } from './flow-driver.ts';

const INDEX: Record<Decision, number> = { once: 0, always: 1, deny: 2 };

interface WebCall extends WaitingCall {
  view: ThreadView;
  message: string;
  refs: string[];
}

export const makeWebApprovalDriver: MakeApprovalDriver = async () => {
  const watch = new CoreWatch();
  const rig = await startApprovalHarness(watch, (url) => ({
    env: { WEB_ENABLED: 'true' },
    overrides: contractOverrides({
      mcp: { servers: [{ name: 'test', url }], approvalTtlSeconds: 60 },
    }),
  }));
  const { h } = rig;
  let client = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
  /** Every call's page, watched again after a restart. */
  const calls: WebCall[] = [];
  const bot = (v: ThreadView): WebMessage[] => v.messages().filter((m) => m.author === 'bot');
  const messageOf = (c: WebCall) => c.view.messages().find((m) => m.id === c.message);

  async function act(thread: string, message: string, ref: string, values = {}) {
    const res = await client.request(`/api/threads/${thread}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: message, ref, values }),
    });
    if (!res.ok) throw new Error(`web approval driver: action answered ${res.status}`);
  }

  const driver: ApprovalDriver = {
    name: 'web',
    llm: h.llm,
    mcp: rig.server,

    async switchOn() {
      const view = await client.watch((await client.createThread()).id);
      const since = watch.interactions;
      await client.send(view.id, '/settings', randomUUID());
      await watch.interacted(since, WEB_PERSON);
      const form = await view.until(() => bot(view).find((m) => m.card?.form), 'the form');
      const fields = form.card?.form?.fields ?? [];
      const values = Object.fromEntries(
        fields.map((f) => [f.id, f.id === 'mcp_servers' ? 'test' : (f.initial ?? '')]),
      );
      const next = watch.interactions;
      await act(view.id, form.id, form.card?.form?.submit.ref ?? '', values);
      await watch.interacted(next, WEB_PERSON);
      return view.until(() => {
        const m = view.messages().find((x) => x.id === form.id);
        return m && !m.card?.form ? m.text : undefined;
      }, 'the saved notice');
    },

    async ask(where, words) {
      const view = await client.watch((await client.createThread()).id);
      const id = await client.send(view.id, words, randomUUID());
      await watch.handled(id);
      await view.until(
        () =>
          view.events.some(
            (e) => e.type === 'handled' && (e.data as { messageId: string }).messageId === id,
          ),
        `${id} handled on the page`,
      );
      const card = bot(view).find((m) => (m.card?.actions?.length ?? 0) === 3);
      if (!card) return undefined;
      const c: WebCall = {
        where,
        view,
        message: card.id,
        refs: (card.card?.actions ?? []).map((a) => a.ref),
      };
      calls.push(c);
      return c;
    },

    card(call): SeenCard {
      const m = messageOf(call as WebCall);
      return {
        text: `${m?.text ?? ''}\n${JSON.stringify(m?.card?.fields ?? [])}`,
        buttons: (m?.card?.actions ?? []).map((a) => a.label),
      };
    },

    async press(call, decision) {
      const c = call as WebCall;
      const count = c.view.messages().length;
      const since = watch.interactions;
      await act(c.view.id, c.message, c.refs[INDEX[decision]] ?? '');
      const e = await watch.interacted(since, WEB_PERSON);
      if (e.outcome === 'done' || e.outcome === 'cancelled')
        return { outcome: e.outcome, said: '' };
      const said = await c.view.until(
        () =>
          bot(c.view)
            .filter((m) => c.view.messages().indexOf(m) >= count)
            .at(-1)?.text,
        'what the press was told',
      );
      return { outcome: e.outcome, said };
    },

    waitInThread(call, words) {
      const c = call as WebCall;
      return c.view.until(() => {
        const all = bot(c.view)
          .map((m) => m.text)
          .join('\n');
        return words.test(all) ? all : undefined;
      }, `${words} in the thread`);
    },

    expire: () => h.app.approvals.sweep(Date.now() + 61_000),

    async restart() {
      for (const c of calls) c.view.close();
      await h.restart();
      watch.watch(h.app.core);
      client = new WebChatClient(`http://127.0.0.1:${h.app.port}`);
      for (const c of calls) c.view = await client.watch(c.view.id);
    },

    async close() {
      for (const c of calls) c.view.close();
      await rig.close();
    },
  };
  return driver;
};
