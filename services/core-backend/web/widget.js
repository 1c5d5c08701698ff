// @ts-check
/**
 * The embedded chat widget (`/embed/:iframeId`): a visitor of a site that embeds it asks the
 * workspace's assistant. The page knows only the widget's id (the app key stays on the server);
 * the visitor's conversation id, issued with the first answer, is kept in localStorage so a
 * return visit shows the conversation again.
 */
import { Conversation, errorOf } from './conversation.js';

/**
 * @typedef {{ title: string, greeting: string, primary_color: string, dark_mode: boolean }} Theme
 * @typedef {{ id: string, workspace_name: string, theme: Theme }} WidgetConfig
 */

/** @type {WidgetConfig} */
const config = JSON.parse(document.body.dataset.config ?? '{}');
const sessionKey = `pelita.widget.${config.id}`;
const base = `/embed/${config.id}/messages`;

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

document.title = config.theme.title;
byId('widget-title').textContent = config.theme.title;
byId('greeting').textContent = config.theme.greeting;
document.documentElement.style.setProperty('--primary', config.theme.primary_color);
document.body.classList.toggle('dark', config.theme.dark_mode);

const conversation = new Conversation(byId('conversation'), {
  rows: 2,
  ask: (question) =>
    ask(question).catch((/** @type {Error} */ err) => {
      byId('chat-status').textContent = err.message;
    }),
});

async function showHistory() {
  const session = localStorage.getItem(sessionKey);
  if (!session) return;
  const response = await fetch(base, { headers: { 'x-session-id': session } });
  if (!response.ok) throw await errorOf(response);
  conversation.show((await response.json()).data);
}

async function ask(/** @type {string} */ question) {
  const session = localStorage.getItem(sessionKey);
  byId('chat-status').textContent = 'Answering…';
  const response = await fetch(base, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(session ? { 'x-session-id': session } : {}),
    },
    body: JSON.stringify({ chat: question }),
  });
  if (!response.ok) throw await errorOf(response);
  const issued = response.headers.get('x-session-id');
  if (issued) localStorage.setItem(sessionKey, issued);
  const record = await conversation.stream(question, response);
  byId('chat-status').textContent =
    record?.status === 'complete' ? 'Answered.' : 'The answer stopped early.';
}

showHistory().catch((/** @type {Error} */ err) => {
  byId('chat-status').textContent = err.message;
});
