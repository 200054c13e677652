// The web chat page: a list of threads, one thread's messages kept current by its event stream,
// a box to ask, commands, and files dropped or attached. Everything the bot or a file name says is
// inserted as text or through renderMarkdown, never as HTML.
import { icon, VOTE_ICONS } from './icons.js';
import { renderMarkdown } from './markdown.js';

const $ = (id) => document.getElementById(id);
const ui = {
  threads: $('threads'),
  title: $('thread-title'),
  actions: $('thread-actions'),
  messages: $('messages'),
  empty: $('empty'),
  status: $('status'),
  error: $('error'),
  form: $('composer'),
  text: $('text'),
  file: $('file'),
  dropHint: $('drop-hint'),
};

let bot = 'threadmind';
let maxFileBytes = Number.POSITIVE_INFINITY;
let threads = [];
/** The bot's actions on a message (ask-about), from its commands table. */
let messageCommands = [];
let current;
let events;
/** Message id → { data, node }. */
const shown = new Map();

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
}

async function api(path, init = {}) {
  const res = await fetch(path, { credentials: 'same-origin', ...init });
  if (res.status === 401) {
    location.assign('/login');
    throw new Error('Please sign in.');
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ?? `The bot answered ${res.status}.`);
  return body;
}

function renderThreads() {
  ui.threads.replaceChildren(
    ...threads.map((t) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = t.title;
      button.title = t.title;
      button.setAttribute('aria-current', String(t.id === current));
      button.addEventListener('click', () => openThread(t.id));
      const li = document.createElement('li');
      li.append(button);
      return li;
    }),
  );
}

async function loadThreads() {
  const body = await api('/api/threads');
  bot = body.bot;
  maxFileBytes = body.maxFileBytes ?? maxFileBytes;
  threads = body.threads;
  renderThreads();
  renderCommands(body.commands ?? []);
}

/** The bot's commands (its one table): a button for each that needs nothing more, and the hint. */
function renderCommands(commands) {
  messageCommands = commands.filter((c) => c.onMessage);
  ui.actions.replaceChildren(
    ...commands
      .filter((c) => c.button)
      .map((c) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = c.name.charAt(0).toUpperCase() + c.name.slice(1);
        button.title = c.description;
        button.addEventListener('click', () => {
          if (!c.asksFirst || confirm(c.asksFirst)) report(send(`/${c.name}`));
        });
        return button;
      }),
  );
  const names = commands
    .filter((c) => !c.onMessage)
    .map((c) => `/${c.name}`)
    .join(', ');
  ui.text.placeholder = `Ask something, drop files (what you typed goes with them)${names ? `, or type ${names}` : ''} (Enter sends, Shift+Enter new line)`;
}

function fileState(message) {
  if (message.reactions?.includes('warning')) return ['could not read', 'warning'];
  if (message.reactions?.includes('ok')) return ['read', 'ok'];
  return message.filesDone ? ['', ''] : ['reading…', ''];
}

function renderMessage(entry) {
  const m = entry.data;
  const li = entry.node ?? document.createElement('li');
  li.className = `message ${m.author}${m.streaming ? ' streaming' : ''}`;
  li.dataset.id = m.id;
  const author = document.createElement('div');
  author.className = 'author';
  author.textContent = m.author === 'bot' ? bot : 'You';
  const body = document.createElement('div');
  body.className = 'body';
  // A person's words are shown as typed; the bot's are Markdown.
  if (m.author === 'bot') body.append(renderMarkdown(m.text));
  else if (m.text) body.append(Object.assign(document.createElement('p'), { textContent: m.text }));
  li.replaceChildren(author, body);
  if (m.files?.length) {
    const [state, kind] = fileState(m);
    const list = document.createElement('ul');
    list.className = 'files';
    list.setAttribute('aria-label', 'Files');
    for (const f of m.files) {
      const item = document.createElement('li');
      item.className = 'file';
      item.append(icon('file'), ` ${f.name}`);
      const s = document.createElement('span');
      s.className = `state ${kind}`;
      if (kind) s.append(icon(kind), ' ');
      s.append(state);
      item.append(s);
      list.append(item);
    }
    li.append(list);
  }
  if (m.sources?.length) {
    const list = document.createElement('ul');
    list.className = 'sources';
    list.setAttribute('aria-label', 'Sources');
    for (const label of m.sources) {
      const item = document.createElement('li');
      item.textContent = label;
      list.append(item);
    }
    li.append(list);
  }
  if (m.card) li.append(cardView(m));
  if (m.votes?.length && !m.streaming) li.append(feedbackButtons(m));
  if (!m.streaming && !m.card && messageCommands.length) li.append(messageActions(m));
  entry.node = li;
  return li;
}

/** Sends what the person did on a card (a button, a form) back to the bot's flow. */
async function act(m, ref, values, command) {
  try {
    await api(`/api/threads/${current}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: m.id, ref, values, command }),
    });
  } catch (err) {
    showError(err.message);
  }
}

function button(label, style, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = `action${style ? ` ${style}` : ''}`;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

/** One input of a card's form, named by the field's id. */
function formField(f, error) {
  const label = document.createElement('label');
  label.className = 'field';
  label.append(Object.assign(document.createElement('span'), { textContent: f.label }));
  let input;
  if (f.kind === 'long') input = document.createElement('textarea');
  else if (f.kind === 'select' || f.kind === 'multi') {
    input = document.createElement('select');
    input.multiple = f.kind === 'multi';
    for (const c of f.choices ?? []) {
      const o = Object.assign(document.createElement('option'), {
        value: c.value,
        textContent: c.label,
      });
      o.selected = Array.isArray(f.initial) ? f.initial.includes(c.value) : f.initial === c.value;
      input.append(o);
    }
  } else {
    input = document.createElement('input');
    input.type = f.kind === 'number' ? 'number' : f.kind === 'toggle' ? 'checkbox' : 'text';
    if (f.kind === 'number') Object.assign(input, { min: f.min, max: f.max });
  }
  input.name = f.id;
  if (f.maxLength) input.maxLength = f.maxLength;
  if (f.kind === 'toggle') input.checked = f.initial === true;
  else if (f.initial !== undefined && f.kind !== 'select' && f.kind !== 'multi')
    input.value = f.initial;
  input.required = !f.optional && f.kind !== 'toggle' && f.kind !== 'multi';
  label.append(input);
  if (f.help) label.append(Object.assign(document.createElement('small'), { textContent: f.help }));
  if (error)
    label.append(
      Object.assign(document.createElement('em'), { className: 'field-error', textContent: error }),
    );
  return label;
}

/** A form's values by field id, typed as the bot expects them. */
function formValues(form, fields) {
  const values = {};
  for (const f of fields) {
    const el = form.elements.namedItem(f.id);
    if (!el) continue;
    if (f.kind === 'toggle') values[f.id] = el.checked;
    else if (f.kind === 'multi') values[f.id] = [...el.selectedOptions].map((o) => o.value);
    else if (f.kind === 'number') values[f.id] = el.value === '' ? undefined : Number(el.value);
    else values[f.id] = el.value;
  }
  return values;
}

/** A flow's card: title, fields, a small line, its buttons or its form (the bot's words are above). */
function cardView(m) {
  const c = m.card;
  const box = document.createElement('div');
  box.className = 'card';
  if (c.title)
    box.append(Object.assign(document.createElement('strong'), { textContent: c.title }));
  for (const f of c.fields ?? []) {
    const row = document.createElement('div');
    row.className = 'card-field';
    row.append(
      Object.assign(document.createElement('span'), { textContent: `${f.label}: ` }),
      renderMarkdown(f.value),
    );
    box.append(row);
  }
  if (c.context)
    box.append(Object.assign(document.createElement('small'), { textContent: c.context }));
  if (c.file) box.append(fileLink(c.file));
  if (c.actions?.length) {
    const bar = document.createElement('div');
    bar.className = 'actions';
    for (const a of c.actions) bar.append(button(a.label, a.style, () => act(m, a.ref)));
    box.append(bar);
  }
  if (c.form) {
    const form = document.createElement('form');
    for (const f of c.form.fields) form.append(formField(f, c.errors?.[f.id]));
    const bar = document.createElement('div');
    bar.className = 'actions';
    const submit = Object.assign(document.createElement('button'), {
      type: 'submit',
      className: 'action primary',
      textContent: c.form.submit.label,
    });
    bar.append(
      submit,
      button(c.form.cancel.label, '', () => act(m, c.form.cancel.ref)),
    );
    form.append(bar);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void act(m, c.form.submit.ref, formValues(form, c.form.fields));
    });
    box.append(form);
  }
  return box;
}

/**
 * 👍/👎 under an answer (the bot's buttons, drawn as icons named in words); the vote given shows
 * pressed, 👎 asks why in the thread.
 */
function feedbackButtons(m) {
  const bar = document.createElement('div');
  bar.className = 'feedback';
  for (const v of m.votes) {
    const b = button(v.label, '', () => act(m, v.ref));
    b.className = 'vote';
    const drawn = VOTE_ICONS[v.label];
    if (drawn) {
      b.replaceChildren(icon(drawn.icon));
      b.setAttribute('aria-label', drawn.name);
      b.title = drawn.name;
    }
    b.setAttribute('aria-pressed', String(m.voted === v.ref));
    bar.append(b);
  }
  return bar;
}

/** The bot's actions on a message ("Ask about this"): the answer comes in the thread. */
function messageActions(m) {
  const bar = document.createElement('div');
  bar.className = 'message-actions';
  for (const c of messageCommands) {
    const b = button(c.name, '', () => {
      // Its optional question; Cancel asks nothing.
      const question = c.question ? prompt(c.question, '') : '';
      if (question !== null)
        void act(m, undefined, question ? { question } : undefined, c.onMessage);
    });
    b.title = c.description;
    bar.append(b);
  }
  return bar;
}

/** A file the bot handed over (an export): a link that saves it. */
function fileLink(file) {
  const a = document.createElement('a');
  a.className = 'file-download';
  a.append(icon('file'), ` ${file.name}`);
  a.download = file.name;
  a.href = URL.createObjectURL(new Blob([file.body], { type: 'text/plain' }));
  return a;
}

function atBottom() {
  const el = ui.messages;
  return el.scrollHeight - el.scrollTop - el.clientHeight < 80;
}

function upsert(message) {
  const follow = atBottom();
  const entry = shown.get(message.id);
  if (entry) {
    entry.data = message;
    renderMessage(entry);
  } else {
    const created = { data: message };
    shown.set(message.id, created);
    ui.messages.append(renderMessage(created));
  }
  ui.empty.hidden = shown.size > 0;
  if (follow) ui.messages.scrollTop = ui.messages.scrollHeight;
}

let pendingRender = new Set();
function appendText(id, text) {
  const entry = shown.get(id);
  if (!entry) return;
  entry.data.text += text;
  // Several deltas in one frame are drawn once.
  if (pendingRender.size === 0)
    requestAnimationFrame(() => {
      const follow = atBottom();
      for (const e of pendingRender) renderMessage(e);
      pendingRender = new Set();
      if (follow) ui.messages.scrollTop = ui.messages.scrollHeight;
    });
  pendingRender.add(entry);
}

function setStatus(text) {
  ui.status.textContent = text ? `${bot} ${text}` : '';
}

function openThread(id) {
  current = id;
  if (location.hash !== `#${id}`) history.replaceState(null, '', `#${id}`);
  events?.close();
  shown.clear();
  ui.messages.replaceChildren();
  ui.empty.hidden = false;
  setStatus('');
  showError('');
  const thread = threads.find((t) => t.id === id);
  ui.title.textContent = thread?.title ?? 'threadmind';
  renderThreads();
  events = new EventSource(`/api/threads/${encodeURIComponent(id)}/events`);
  const on = (type, fn) => events.addEventListener(type, (e) => fn(JSON.parse(e.data)));
  on('snapshot', (s) => {
    shown.clear();
    ui.messages.replaceChildren();
    for (const m of s.messages) upsert(m);
    ui.empty.hidden = shown.size > 0;
    setStatus(s.status);
    ui.messages.scrollTop = ui.messages.scrollHeight;
  });
  on('message', (e) => upsert(e.message));
  on('append', (e) => appendText(e.id, e.text));
  on('delete', (e) => {
    shown.get(e.id)?.node?.remove();
    shown.delete(e.id);
  });
  on('status', (e) => setStatus(e.text));
  on('thread', (e) => {
    threads = [e.thread, ...threads.filter((t) => t.id !== e.thread.id)];
    if (e.thread.id === current) ui.title.textContent = e.thread.title;
    renderThreads();
  });
}

async function newThread() {
  const { thread } = await api('/api/threads', { method: 'POST' });
  threads = [thread, ...threads];
  openThread(thread.id);
  ui.text.focus();
  return thread.id;
}

async function ensureThread() {
  return current ?? newThread();
}

/** Sends once, and once more with the same id if the network failed (the bot keeps one). */
async function post(path, init) {
  try {
    return await api(path, init);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    return api(path, init);
  }
}

async function send(text) {
  if (!text.trim()) return;
  showError('');
  const id = await ensureThread();
  await post(`/api/threads/${id}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, clientId: crypto.randomUUID() }),
  });
}

/** Sends files; what is typed in the box goes with the first ("share this with the workspace"). */
async function upload(files) {
  showError('');
  const id = await ensureThread();
  let text = ui.text.value.trim();
  ui.text.value = '';
  for (const file of files) {
    if (file.size > maxFileBytes) {
      showError(
        `${file.name} is larger than the ${Math.round(maxFileBytes / 1048576)} MB limit for files.`,
      );
      continue;
    }
    const q = new URLSearchParams({ name: file.name, clientId: crypto.randomUUID() });
    if (text) q.set('text', text);
    text = '';
    await post(`/api/threads/${id}/files?${q}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: file,
    }).catch((err) => showError(err.message));
  }
}

const report = (promise) => promise.catch((err) => showError(err.message));

ui.form.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = ui.text.value;
  ui.text.value = '';
  report(
    send(text).catch((err) => {
      ui.text.value ||= text;
      throw err;
    }),
  );
});
ui.text.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    ui.form.requestSubmit();
  }
});
ui.file.addEventListener('change', () => {
  const files = [...ui.file.files];
  ui.file.value = '';
  report(upload(files));
});
$('new-thread').addEventListener('click', () => report(newThread()));

let dragDepth = 0;
document.addEventListener('dragenter', (e) => {
  if (!e.dataTransfer?.types.includes('Files')) return;
  dragDepth++;
  ui.dropHint.hidden = false;
});
document.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) ui.dropHint.hidden = true;
});
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  ui.dropHint.hidden = true;
  const files = [...(e.dataTransfer?.files ?? [])];
  if (files.length) report(upload(files));
});

report(
  loadThreads().then(() => {
    const wanted = location.hash.slice(1);
    const first = threads.find((t) => t.id === wanted) ?? threads[0];
    if (first) openThread(first.id);
  }),
);
