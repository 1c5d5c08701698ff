// @ts-check
/**
 * The chat page (`/chat`): log in, pick a workspace, add documents and follow their processing,
 * chat in rooms with streamed answers and their sources, like or dislike answers, read a room's
 * history. Everything goes through the core backend's API with the user's own token, so the page
 * can do exactly what the user may do, no more.
 */
import { Conversation, errorOf } from './conversation.js';
import { Session } from './session.js';

/** How often documents still in processing are looked at again (ms). */
const FOLLOW_INTERVAL_MS = 1500;

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const formById = (id) => /** @type {HTMLFormElement} */ (document.getElementById(id));

/**
 * @typedef {{ id: string, name: string, role?: string }} Workspace
 * @typedef {{ id: string, name: string, state: string, stage: string, progress_pct: number,
 *   error: string | null }} DocumentRecord
 * @typedef {{ id: string, name: string }} Room
 */

const session = new Session();
const state = {
  /** @type {string | undefined} */ workspaceId: undefined,
  /** @type {string | undefined} */ roomId: undefined,
  /** @type {Map<string, string>} */ documentNames: new Map(),
  /** @type {ReturnType<typeof setTimeout> | undefined} */ following: undefined,
};

const conversation = new Conversation(byId('conversation'), {
  rows: 3,
  ask: (question) => act('chat-status', () => ask(question)),
  react: (id, reaction) =>
    session.json(
      `/api/workspaces/${state.workspaceId}/rooms/${state.roomId}/messages/${id}/reaction`,
      'PUT',
      { reaction },
    ),
  sourceName: (type, id) => (type === 'document' ? state.documentNames.get(id) : undefined),
});

/** Shows a message in one of the page's status lines (read out by screen readers). */
function say(/** @type {string} */ lineId, /** @type {string} */ message) {
  byId(lineId).textContent = message;
}

/**
 * On a phone the side panel and the conversation take turns (the stylesheet shows one): opens
 * or closes the side panel. On a wider screen both show and this changes nothing visible.
 */
function showSide(/** @type {boolean} */ open) {
  byId('app-view').classList.toggle('side-open', open);
  byId('side-toggle').setAttribute('aria-expanded', String(open));
  // A control that has just gone out of sight (a room picked on a phone) hands on the focus.
  const focused = document.activeElement;
  if (!open && focused instanceof HTMLElement && !focused.checkVisibility()) {
    byId('question').focus();
  }
}

/** Runs a user action; a failure is said on the given status line instead of lost. */
function act(/** @type {string} */ lineId, /** @type {() => Promise<void>} */ action) {
  return action().catch((/** @type {Error} */ err) => {
    if (!session.loggedIn) return showLogin('Your session ended: please log in again.');
    say(lineId, err.message);
  });
}

function showLogin(/** @type {string} */ message = '') {
  clearTimeout(state.following);
  byId('app-view').hidden = true;
  byId('account').hidden = true;
  byId('login-view').hidden = false;
  say('login-error', message);
  byId('email').focus();
}

async function showApp() {
  byId('login-view').hidden = true;
  byId('app-view').hidden = false;
  byId('account').hidden = false;
  byId('who').textContent = usernameOf(session.tokens?.access_token);
  await loadWorkspaces();
}

/** The username claim of an access token, to show who is logged in. */
function usernameOf(/** @type {string | undefined} */ token) {
  try {
    const payload = token?.split('.')[1] ?? '';
    return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))).username ?? '';
  } catch {
    return '';
  }
}

async function loadWorkspaces(/** @type {string | undefined} */ select = undefined) {
  const { data } = /** @type {{ data: Workspace[] }} */ (
    await session.json('/api/workspaces?limit=200')
  );
  const picker = /** @type {HTMLSelectElement} */ (byId('workspace'));
  picker.replaceChildren(
    ...data.map((w) => {
      const option = document.createElement('option');
      option.value = w.id;
      option.textContent = w.name;
      return option;
    }),
  );
  byId('no-workspace').hidden = data.length > 0;
  byId('workspace-view').hidden = data.length === 0;
  // Without a workspace there is nothing to chat in yet: the side panel says what to do.
  if (data.length === 0) showSide(true);
  const chosen = select ?? state.workspaceId ?? data[0]?.id;
  if (chosen) {
    picker.value = chosen;
    await openWorkspace(chosen);
  }
}

async function openWorkspace(/** @type {string} */ id) {
  state.workspaceId = id;
  state.roomId = undefined;
  conversation.clear();
  await loadDocuments();
  const rooms = await loadRooms();
  // Another workspace picked meanwhile (the first one still loading after a log-in) goes first.
  if (rooms[0] && state.workspaceId === id) await openRoom(rooms[0].id);
}

async function loadDocuments() {
  clearTimeout(state.following);
  const workspaceId = state.workspaceId;
  const { data } = /** @type {{ data: DocumentRecord[] }} */ (
    await session.json(`/api/workspaces/${workspaceId}/documents?limit=200`)
  );
  if (workspaceId !== state.workspaceId) return;
  state.documentNames = new Map(data.map((d) => [d.id, d.name]));
  byId('documents').replaceChildren(...data.map(documentItem));
  byId('no-documents').hidden = data.length > 0;
  if (data.some((d) => d.state === 'queued' || d.state === 'processing')) {
    state.following = setTimeout(() => act('upload-status', loadDocuments), FOLLOW_INTERVAL_MS);
  }
}

/** A document with its processing stage: queued, processing (stage and progress), done, failed. */
function documentItem(/** @type {DocumentRecord} */ doc) {
  const item = document.createElement('li');
  item.className = `document state-${doc.state}`;
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = doc.name;
  const status = document.createElement('span');
  status.className = 'status';
  status.textContent =
    doc.state === 'processing'
      ? `processing: ${doc.stage} ${doc.progress_pct}%`
      : doc.state === 'failed'
        ? `failed: ${doc.error ?? 'unknown error'}`
        : doc.state;
  item.append(name, status);
  if (doc.state === 'processing') {
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = doc.progress_pct;
    bar.setAttribute('aria-label', `${doc.name} processed`);
    item.append(bar);
  }
  return item;
}

async function loadRooms() {
  const workspaceId = state.workspaceId;
  const { data } = /** @type {{ data: Room[] }} */ (
    await session.json(`/api/workspaces/${workspaceId}/rooms?limit=50`)
  );
  if (workspaceId !== state.workspaceId) return [];
  byId('rooms').replaceChildren(
    ...data.map((room) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = room.name;
      button.dataset.roomId = room.id;
      if (room.id === state.roomId) button.setAttribute('aria-current', 'true');
      button.addEventListener('click', () =>
        act('chat-status', async () => {
          await openRoom(room.id);
          showSide(false);
        }),
      );
      item.append(button);
      return item;
    }),
  );
  return data;
}

async function openRoom(/** @type {string} */ id) {
  state.roomId = id;
  for (const button of byId('rooms').querySelectorAll('button')) {
    if (button.dataset.roomId === id) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  const { data } = await session.json(
    `/api/workspaces/${state.workspaceId}/rooms/${id}/messages?limit=50`,
  );
  if (state.roomId === id) conversation.show(data);
}

async function newRoom(/** @type {string} */ name) {
  const room = /** @type {Room} */ (
    await session.json(`/api/workspaces/${state.workspaceId}/rooms`, 'POST', { name })
  );
  state.roomId = room.id;
  conversation.clear();
  await loadRooms();
  return room;
}

async function ask(/** @type {string} */ question) {
  if (!state.roomId) await newRoom(question.slice(0, 60));
  say('chat-status', 'Answering…');
  const response = await session.fetch(
    `/api/workspaces/${state.workspaceId}/rooms/${state.roomId}/messages`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ chat: question }),
    },
  );
  if (!response.ok) throw await errorOf(response);
  const record = await conversation.stream(question, response);
  say('chat-status', record?.status === 'complete' ? 'Answered.' : 'The answer stopped early.');
  await loadRooms();
}

async function upload(/** @type {File} */ file) {
  const form = new FormData();
  form.append('file', file);
  say('upload-status', `Uploading ${file.name}…`);
  const response = await session.fetch(`/api/workspaces/${state.workspaceId}/documents`, {
    method: 'POST',
    body: form,
  });
  if (!response.ok) throw await errorOf(response);
  say('upload-status', `${file.name} added: it is being processed.`);
  await loadDocuments();
}

formById('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const data = new FormData(form);
  act('login-error', async () => {
    await session.login(String(data.get('email')), String(data.get('password')));
    form.reset();
    say('login-error', '');
    await showApp();
  });
});

byId('logout').addEventListener('click', () =>
  act('chat-status', async () => {
    await session.logout();
    showLogin('You are logged out.');
  }),
);

byId('side-toggle').addEventListener('click', () =>
  showSide(byId('side-toggle').getAttribute('aria-expanded') !== 'true'),
);

byId('workspace').addEventListener('change', (event) =>
  act('chat-status', () => openWorkspace(/** @type {HTMLSelectElement} */ (event.target).value)),
);

formById('workspace-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const name = String(new FormData(form).get('name')).trim();
  act('workspace-status', async () => {
    const created = await session.json('/api/workspaces', 'POST', { name });
    form.reset();
    /** @type {HTMLDetailsElement} */ (form.closest('details')).open = false;
    say('workspace-status', `Workspace ${name} created.`);
    await loadWorkspaces(created.id);
  });
});

formById('upload-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const file = /** @type {HTMLInputElement} */ (byId('file')).files?.[0];
  if (!file) return;
  act('upload-status', async () => {
    await upload(file);
    form.reset();
  });
});

byId('new-room').addEventListener('click', () =>
  act('chat-status', async () => {
    await newRoom('New chat');
    showSide(false);
    byId('question').focus();
  }),
);

if (session.loggedIn) act('chat-status', showApp);
else showLogin();
