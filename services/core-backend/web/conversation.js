// @ts-check
/**
 * A conversation on a page, the same on the chat page and in the widget: the messages, the
 * question form and a status line. Each exchange is the question, the answer (streamed in as it
 * comes), the sources it was given and, where the page allows it, like / dislike. Text is only ever
 * set as text, never as HTML: answers and document names are not trusted markup. An answer's
 * markdown is built as elements (`markdown.js`), re-built as its text streams in.
 */
import { readEvents } from './event-stream.js';
import { renderMarkdown } from './markdown.js';

/**
 * @typedef {{ type: string, topic_id: string[] }} SourceDetail
 * @typedef {{ id: string, chat: string, response: string, like: boolean, dislike: boolean,
 *   status: string, error: string | null, knowledge_source_detail: SourceDetail[] }} ChatRecord
 * @typedef {{ type: string, id: string, title: string, kind: string, position: number }} Passage
 * @typedef {'like' | 'dislike' | null} Reaction
 * @typedef {{
 *   ask: (question: string) => Promise<unknown>,
 *   rows: number,
 *   react?: (id: string, reaction: Reaction) => Promise<ChatRecord>,
 *   sourceName?: (type: string, id: string) => string | undefined,
 * }} ConversationOptions
 */

/**
 * @param {string} tag
 * @param {string} [className]
 * @param {string} [text]
 */
function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** An error an answer carried as JSON (`{error: {message}}`), or its status. */
export async function errorOf(/** @type {Response} */ response) {
  const body = await response.json().catch(() => undefined);
  return new Error(body?.error?.message ?? `The server answered ${response.status}`);
}

export class Conversation {
  /**
   * Builds the conversation in `host`: the messages (a log of exchanges), the question form
   * (`rows` high; a question goes to `ask`) and the status line `#chat-status`.
   * @param {HTMLElement} host
   * @param {ConversationOptions} options
   */
  constructor(host, options) {
    this.options = options;
    this.list = element('ol');
    this.list.id = 'messages';
    const log = element('div', 'messages');
    log.setAttribute('role', 'log');
    log.setAttribute('aria-label', 'Messages');
    log.append(this.list);
    const status = element('p', 'status');
    status.id = 'chat-status';
    status.setAttribute('role', 'status');
    host.append(log, questionForm(options.rows, options.ask), status);
  }

  clear() {
    this.list.replaceChildren();
  }

  /** Shows stored records, given newest first (as the APIs answer), oldest at the top. */
  show(/** @type {ChatRecord[]} */ records) {
    this.clear();
    for (const record of [...records].reverse()) {
      const exchange = this.#exchange(record.chat);
      exchange.showAnswer(record.response);
      exchange.finish(record);
      exchange.showSources(this.#namedSources(record.knowledge_source_detail));
    }
    this.list.lastElementChild?.scrollIntoView({ block: 'end' });
  }

  /**
   * Shows `question` and streams the answer of `response` (server-sent events `sources`, `token`,
   * `done`, `error`) into a new exchange as it arrives. Resolves with the stored record.
   * @param {string} question
   * @param {Response} response
   * @returns {Promise<ChatRecord | undefined>}
   */
  async stream(question, response) {
    const exchange = this.#exchange(question);
    exchange.answer.setAttribute('aria-busy', 'true');
    let record;
    let text = '';
    try {
      for await (const { event, data } of readEvents(response)) {
        if (event === 'sources') {
          exchange.showSources(
            /** @type {Passage[]} */ (data).map((p) => `${p.title}${sourceWhere(p)}`),
          );
        } else if (event === 'token') {
          text += data.text;
          exchange.showAnswer(text);
          exchange.answer.scrollIntoView({ block: 'end' });
        } else if (event === 'done') {
          record = /** @type {ChatRecord} */ (data);
        } else if (event === 'error') {
          exchange.note(`The answer stopped: ${data.message}`);
        }
      }
    } finally {
      exchange.answer.removeAttribute('aria-busy');
    }
    if (record) exchange.finish(record);
    return record;
  }

  /** @param {SourceDetail[]} details */
  #namedSources(details) {
    const names = [];
    for (const detail of details) {
      for (const id of detail.topic_id) {
        names.push(this.options.sourceName?.(detail.type, id) ?? `a ${detail.type}`);
      }
    }
    return [...new Set(names)];
  }

  /** @param {string} question */
  #exchange(question) {
    const item = element('li', 'exchange');
    const asked = element('div', 'question');
    asked.append(element('span', 'who', 'You'), element('p', 'text', question));
    const answer = element('div', 'answer');
    // A div: the answer's markdown may hold headings, lists and code blocks.
    const text = element('div', 'text');
    answer.append(element('span', 'who', 'Assistant'), text);
    item.append(asked, answer);
    this.list.append(item);
    item.scrollIntoView({ block: 'end' });

    const react = this.options.react;
    return {
      answer,
      /** @param {string} markdown the answer so far */
      showAnswer(markdown) {
        text.replaceChildren(renderMarkdown(markdown));
      },
      /** @param {string} message */
      note(message) {
        answer.append(element('p', 'note', message));
      },
      /** @param {string[]} names */
      showSources(names) {
        answer.querySelector('.sources')?.remove();
        if (names.length === 0) return;
        const sources = element('div', 'sources');
        const list = element('ul');
        for (const name of names) list.append(element('li', undefined, name));
        sources.append(element('span', 'label', 'Sources'), list);
        answer.append(sources);
      },
      /** @param {ChatRecord} record */
      finish(record) {
        if (record.status === 'partial' || record.status === 'failed') {
          if (!answer.querySelector('.note')) {
            answer.append(
              element('p', 'note', `The answer stopped: ${record.error ?? 'unknown error'}`),
            );
          }
        }
        if (react) answer.append(reactions(record, react));
      },
    };
  }
}

/** Where in its source a passage is, for the list under an answer. */
function sourceWhere(/** @type {Passage} */ passage) {
  if (passage.kind === 'chunk') return ` (part ${passage.position + 1})`;
  if (passage.kind === 'summary') return ' (summary)';
  return '';
}

/**
 * Like / dislike: toggle buttons, one excluding the other (the server keeps them so).
 * @param {ChatRecord} record
 * @param {(id: string, reaction: Reaction) => Promise<ChatRecord>} react
 */
function reactions(record, react) {
  const group = element('div', 'reactions');
  group.setAttribute('role', 'group');
  group.setAttribute('aria-label', 'Rate this answer');
  const like = element('button', 'like', 'Like');
  const dislike = element('button', 'dislike', 'Dislike');
  /** @param {ChatRecord} current */
  const mark = (current) => {
    like.setAttribute('aria-pressed', String(current.like));
    dislike.setAttribute('aria-pressed', String(current.dislike));
  };
  mark(record);
  for (const [button, reaction] of /** @type {const} */ ([
    [like, 'like'],
    [dislike, 'dislike'],
  ])) {
    button.setAttribute('type', 'button');
    button.addEventListener('click', async () => {
      const pressed = button.getAttribute('aria-pressed') === 'true';
      mark(await react(record.id, pressed ? null : reaction));
    });
  }
  group.append(like, dislike);
  return group;
}

/**
 * The question form: on submit (the button, or Enter; Shift+Enter starts a new line) the
 * question is taken from the box and handed to `ask`, the button disabled until it settles.
 * @param {number} rows
 * @param {(question: string) => Promise<unknown>} ask
 */
function questionForm(rows, ask) {
  const form = /** @type {HTMLFormElement} */ (element('form', 'ask'));
  form.id = 'ask-form';
  const label = element('label', undefined, 'Your question');
  label.setAttribute('for', 'question');
  const box = /** @type {HTMLTextAreaElement} */ (element('textarea'));
  Object.assign(box, { id: 'question', name: 'question', rows, required: true, maxLength: 20000 });
  const send = /** @type {HTMLButtonElement} */ (element('button', undefined, 'Send'));
  send.type = 'submit';
  form.append(label, box, send);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const question = box.value.trim();
    if (!question) return;
    send.disabled = true;
    box.value = '';
    ask(question).finally(() => {
      send.disabled = false;
      box.focus();
    });
  });
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return form;
}
