/**
 * The chat page and the embedded widget in a real browser (headless Chromium through
 * playwright-core), against the whole platform: the user service behind the sign-in relay, the
 * real OCR chain for an uploaded document, the LLM stand-in for answers (and, for the answers
 * whose markdown is checked, a workspace model server that answers a fixed text). Screenshots
 * are kept in `test-artifacts/core-backend/` (PELITA_TEST_ARTIFACTS); axe-core must find no
 * serious or critical violation, at a desktop's size and at a phone's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium, screenshot, seriousViolations, waitFor } from '@pelita/testenv';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { textPdf } from '../../../ocr-service/test/integration/support/documents';
import { ADMIN, expectJson } from './support/core-stack';
import { startDocumentStack, type DocumentStack } from './support/document-stack';

const QUESTION = 'When does the lighthouse keeper light the lamp?';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * A model's answer with markdown, and with what a model could be made to write to attack the
 * page: HTML with an event handler, script and data links.
 */
const MARKDOWN_ANSWER = [
  '# Lamp schedule',
  '',
  'The keeper lights the lamp at **dusk** and puts it out at *dawn*; see',
  '[the almanac](https://example.org/almanac?year=2026) or https://example.org/tides.',
  '',
  '1. Trim the `wick`',
  '2. Fill the oil',
  '   - lamp oil',
  '   - spare oil',
  '',
  '```sh',
  'light --at dusk <lamp> && echo "lit"',
  '```',
  '',
  '> Never leave it unattended.',
  '',
  '| Season | Lit at |',
  '| --- | --- |',
  '| Winter | 16:30 |',
  '',
  '![the lamp](https://example.org/lamp.png)',
  '',
  '<img src=x onerror="window.pwned=1"> <a href="javascript:window.pwned=2">the log</a>',
  '[a trap](javascript:window.pwned=3) and [data](data:text/html;base64,PHNjcmlwdD4=)',
].join('\n');

/**
 * An OpenAI-compatible model server that answers every chat with `answer`, streamed in pieces
 * of seven characters: markers and tags arrive split, as a model's tokens split them.
 */
function startScriptedModel(answer: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not here' } }));
        return;
      }
      const request = JSON.parse(body) as { model: string; stream?: boolean };
      const base = { id: 'scripted', created: Math.floor(Date.now() / 1000), model: request.model };
      if (!request.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const message = { role: 'assistant', content: answer };
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message, finish_reason: 'stop' }],
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({
          ...base,
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      for (let at = 0; at < answer.length; at += 7) {
        res.write(chunk({ content: answer.slice(at, at + 7) }, null));
      }
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  );
}

/** What the last answer on the page is made of, element by element. */
const LAST_ANSWER_SHAPE = `(() => {
  const text = [...document.querySelectorAll('.answer .text')].at(-1);
  const all = (selector) => [...text.querySelectorAll(selector)];
  const texts = (selector) => all(selector).map((node) => node.textContent);
  return {
    headings: all('h1, h2, h3, h4, h5, h6').map((h) => h.tagName + ' ' + h.textContent),
    strong: texts('strong'),
    em: texts('em'),
    links: all('a').map((a) => ({
      text: a.textContent,
      href: a.getAttribute('href'),
      rel: a.getAttribute('rel'),
      target: a.getAttribute('target'),
    })),
    ordered: all('ol > li').map((li) =>
      [...li.childNodes].filter((node) => node.nodeName !== 'UL').map((node) => node.textContent).join(''),
    ),
    nested: texts('ol > li > ul > li'),
    inlineCode: texts('li > code'),
    codeBlock: texts('pre > code'),
    quote: texts('blockquote'),
    table: texts('th, td'),
    text: text.textContent,
  };
})()`;

/** Anything in the messages a browser would load or run: images, frames, handlers, non-web links. */
const ACTIVE_CONTENT = `(() => {
  const found = [];
  for (const node of document.getElementById('messages').querySelectorAll('*')) {
    if (/^(IMG|SCRIPT|IFRAME|OBJECT|EMBED|SVG|MATH|STYLE|LINK|FORM)$/i.test(node.tagName)) {
      found.push(node.tagName);
    }
    for (const attribute of node.attributes) {
      if (/^on/i.test(attribute.name)) found.push(node.tagName + ' ' + attribute.name);
    }
    if (node.tagName === 'A' && !/^https?:/.test(node.getAttribute('href') ?? '')) {
      found.push('A ' + node.getAttribute('href'));
    }
  }
  if (window.pwned !== undefined) found.push('window.pwned = ' + window.pwned);
  return found;
})()`;

/**
 * Elements that stick out of their panel (top bar, side panel, conversation) sideways, and a
 * page wider than the window. Panels scroll up and down, never sideways.
 */
const OVERFLOWS = `(() => {
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    found.push('the page is ' + root.scrollWidth + ' px wide in a ' + root.clientWidth + ' px window');
  }
  const name = (node) =>
    node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') +
    (node.className && typeof node.className === 'string' ? '.' + node.className.split(' ').join('.') : '');
  for (const panel of document.querySelectorAll('.top-bar, .side, .chat')) {
    if (!panel.checkVisibility()) continue;
    const box = panel.getBoundingClientRect();
    if (box.right > root.clientWidth + 0.5) found.push(name(panel) + ' ends past the window');
    for (const node of panel.querySelectorAll('*')) {
      if (!node.checkVisibility()) continue;
      const rect = node.getBoundingClientRect();
      if (rect.width === 0) continue;
      if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5) {
        found.push(name(node) + ' [' + Math.round(rect.left) + ', ' + Math.round(rect.right) +
          '] outside ' + name(panel) + ' [' + Math.round(box.left) + ', ' + Math.round(box.right) + ']');
      }
    }
  }
  return found;
})()`;

/** Errors a page reports: failed scripts, refused resources (a CSP violation is one). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/** A site that embeds the widget: one page with the iframe. */
function startHostSite(widgetUrl: () => string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Intranet</title></head><body>` +
        `<h1>Intranet</h1><iframe title="Assistant" src="${widgetUrl()}" width="420" height="560"></iframe>` +
        `</body></html>`,
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port }),
    ),
  );
}

describe('the chat page and the widget in Chromium', () => {
  let stack: DocumentStack;
  let browser: Browser;
  let context: BrowserContext;

  let model: { server: Server; url: string };

  beforeAll(async () => {
    model = await startScriptedModel(MARKDOWN_ANSWER);
    // The scripted model is a workspace's own server, on this machine: a target to allow.
    stack = await startDocumentStack({ ALLOWED_TARGETS: '127.0.0.1' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    model?.server.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: DESKTOP });
  });
  afterEach(() => context.close());

  it('logs in, adds a document and follows it, asks, streams the answer with its sources, likes it, shows the history', async () => {
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${stack.core.url}/chat`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'core-backend', 'chat-login');

    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor();

    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('No workspace yet').waitFor();
    await page.getByText('New workspace').click();
    await page.getByLabel('Name').fill('Harbour');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    expect(await page.getByLabel('Workspace').locator('option:checked').textContent()).toBe(
      'Harbour',
    );

    // Upload, then watch the document through its stages to done.
    const pdf = await textPdf(1, () => 'The lighthouse keeper lights the lamp at dusk every day.');
    await page.getByLabel('Add a document').setInputFiles({
      name: 'lighthouse.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    const status = page.locator('.document .status').first();
    const stages: string[] = [];
    await waitFor(
      async () => {
        const text = (await status.textContent().catch(() => null)) ?? '';
        if (text && stages.at(-1) !== text) stages.push(text);
        if (text.startsWith('failed')) throw new Error(`document failed: ${text}`);
        return text === 'done';
      },
      { what: 'the document done', timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(stages[0]).toMatch(/^(queued|processing)/);
    expect(stages.at(-1)).toBe('done');
    expect(await page.locator('.document .name').first().textContent()).toBe('lighthouse.pdf');

    // Record the answer's text while it is still streaming (aria-busy), to see it grow in place.
    await page.evaluate(`
      window.partials = [];
      new MutationObserver(() => {
        const busy = document.querySelector('.answer[aria-busy="true"] .text');
        if (busy && busy.textContent) window.partials.push(busy.textContent.length);
      }).observe(document.getElementById('messages'), {
        subtree: true,
        childList: true,
        characterData: true,
      });
    `);
    await page.getByLabel('Your question').fill(QUESTION);
    await page.getByLabel('Your question').press('Enter');
    const answer = page.locator('.answer').last();
    await answer.locator('.reactions').waitFor({ timeout: 60_000 });
    const answerText = (await answer.locator('.text').textContent()) ?? '';
    expect(answerText.trim().length).toBeGreaterThan(0);
    const partials = await page.evaluate<number[]>('window.partials');
    expect(partials.length).toBeGreaterThan(0);
    expect(Math.min(...partials)).toBeLessThanOrEqual(answerText.length);
    expect(await answer.locator('.sources li').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('lighthouse.pdf')]),
    );
    await expect(page.getByRole('status').filter({ hasText: 'Answered.' }).count()).resolves.toBe(
      1,
    );

    // Like, then dislike: they exclude each other, and the server keeps what the page shows.
    await answer.getByRole('button', { name: 'Like', exact: true }).click();
    await waitFor(
      async () =>
        (await answer
          .getByRole('button', { name: 'Like', exact: true })
          .getAttribute('aria-pressed')) === 'true',
      { what: 'like pressed', timeoutMs: 10_000 },
    );
    await answer.getByRole('button', { name: 'Dislike' }).click();
    await waitFor(
      async () =>
        (await answer.getByRole('button', { name: 'Dislike' }).getAttribute('aria-pressed')) ===
          'true' &&
        (await answer
          .getByRole('button', { name: 'Like', exact: true })
          .getAttribute('aria-pressed')) === 'false',
      { what: 'dislike pressed, like released', timeoutMs: 10_000 },
    );
    await screenshot(page, 'core-backend', 'chat-answered');
    expect(await seriousViolations(page)).toEqual([]);

    const admin = await stack.core.admin();
    const workspaces = await expectJson<{ data: Array<{ id: string; name: string }> }>(
      stack.core.call('GET', '/api/workspaces', admin.token),
      200,
    );
    const workspaceId = workspaces.data.find((w) => w.name === 'Harbour')!.id;
    const rooms = await expectJson<{ data: Array<{ id: string }> }>(
      stack.core.call('GET', `/api/workspaces/${workspaceId}/rooms`, admin.token),
      200,
    );
    const stored = await expectJson<{
      data: Array<{ chat: string; like: boolean; dislike: boolean; response: string }>;
    }>(
      stack.core.call(
        'GET',
        `/api/workspaces/${workspaceId}/rooms/${rooms.data[0]!.id}/messages`,
        admin.token,
      ),
      200,
    );
    expect(stored.data[0]).toMatchObject({
      chat: QUESTION,
      like: false,
      dislike: true,
      response: answerText,
    });

    // A reload keeps the session and shows the room's history, reaction included.
    await page.reload();
    const again = page.locator('.exchange').last();
    await again.waitFor();
    expect(await again.locator('.question .text').textContent()).toBe(QUESTION);
    expect(await again.locator('.answer .text').textContent()).toBe(answerText);
    expect(await again.getByRole('button', { name: 'Dislike' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(await again.locator('.sources li').allTextContents()).toEqual(['lighthouse.pdf']);

    // Logging out ends the session on the server too.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    expect(errors.filter((e) => !/401|Unauthorized/.test(e))).toEqual([]);
  }, 240_000);

  it('runs as a widget inside an allowed site, and nowhere else', async () => {
    const owner = await stack.core.admin();
    const workspace = await expectJson<{ id: string }>(
      stack.core.call('POST', '/api/workspaces', owner.token, { name: 'Widget site' }),
      201,
    );
    const call = (method: string, path: string, body?: unknown) =>
      stack.core.call(method, `/api/workspaces/${workspace.id}${path}`, owner.token, body);
    const key = await expectJson<{ id: string }>(
      call('POST', '/app-keys', { name: 'widget' }),
      201,
    );
    let iframeId = '';
    const host = await startHostSite(() => `${stack.core.url}/embed/${iframeId}`);
    try {
      iframeId = (
        await expectJson<{ id: string }>(
          call('POST', '/iframes', {
            name: 'intranet',
            allowed_origins: [`http://127.0.0.1:${host.port}`],
            app_key_id: key.id,
            theme: { title: 'Harbour desk', greeting: 'Ask about the harbour.' },
          }),
          201,
        )
      ).id;

      const page = await context.newPage();
      const errors = collectErrors(page);
      await page.goto(`http://127.0.0.1:${host.port}/`);
      const widget = page.frameLocator('iframe');
      await widget.getByRole('heading', { name: 'Harbour desk' }).waitFor();
      await widget.getByText('Ask about the harbour.').waitFor();
      await widget.getByLabel('Your question').fill('What does the harbour desk do?');
      await widget.getByRole('button', { name: 'Send' }).click();
      await widget
        .getByRole('status')
        .filter({ hasText: 'Answered.' })
        .waitFor({ timeout: 60_000 });
      const answerText = await widget.locator('.answer .text').last().textContent();
      expect(answerText?.trim().length).toBeGreaterThan(0);
      const frame = page.frames().find((f) => f.url().includes('/embed/'))!;
      expect(await seriousViolations(frame)).toEqual([]);
      await screenshot(page, 'core-backend', 'widget-answered');

      // The visitor's conversation comes back on the next visit.
      await page.reload();
      await widget.locator('.exchange').first().waitFor();
      expect(await widget.locator('.question .text').allTextContents()).toEqual([
        'What does the harbour desk do?',
      ]);
      expect(errors).toEqual([]);

      // The same page served from an origin not on the list: the browser refuses the frame.
      const elsewhere = await context.newPage();
      await elsewhere.goto(`http://localhost:${host.port}/`);
      const blocked = elsewhere.frames().find((f) => f !== elsewhere.mainFrame())!;
      await waitFor(async () => (await blocked.locator('#ask-form').count()) === 0, {
        what: 'the frame refused',
        timeoutMs: 5_000,
      });
      expect(await blocked.locator('#ask-form').count()).toBe(0);
      await screenshot(elsewhere, 'core-backend', 'widget-refused');
    } finally {
      host.server.close();
    }
  }, 180_000);

  /** A new workspace of the admin's whose default model is the scripted one. */
  async function markdownWorkspace(name: string) {
    const admin = await stack.core.admin();
    const workspace = await expectJson<{ id: string }>(
      stack.core.call('POST', '/api/workspaces', admin.token, { name }),
      201,
    );
    await expectJson(
      stack.core.call('POST', `/api/workspaces/${workspace.id}/models`, admin.token, {
        name: 'Scripted',
        model: 'scripted',
        base_url: model.url,
        is_default: true,
      }),
      201,
    );
    return { admin, id: workspace.id };
  }

  /** Logs the admin in on the chat page and opens the workspace named `workspace`. */
  async function logIn(page: Page, workspace: string) {
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('Workspace', { exact: true }).selectOption({ label: workspace });
  }

  it("renders an answer's markdown as elements, streamed and from the history; markup and script links in it stay inert text", async () => {
    await markdownWorkspace('Almanac');
    const page = await context.newPage();
    const errors = collectErrors(page);
    await page.goto(`${stack.core.url}/chat`);
    await logIn(page, 'Almanac');
    await page.getByLabel('Your question').fill('When is the lamp lit?');
    await page.getByLabel('Your question').press('Enter');
    await page.locator('.answer .reactions').last().waitFor({ timeout: 60_000 });

    const link = { rel: 'noopener noreferrer', target: '_blank' };
    const expected = {
      headings: ['H3 Lamp schedule'],
      strong: ['dusk'],
      em: ['dawn'],
      links: [
        { text: 'the almanac', href: 'https://example.org/almanac?year=2026', ...link },
        { text: 'https://example.org/tides', href: 'https://example.org/tides', ...link },
        // An image is a link to it: nothing loads from an address the model wrote.
        { text: 'the lamp', href: 'https://example.org/lamp.png', ...link },
      ],
      ordered: ['Trim the wick', 'Fill the oil'],
      nested: ['lamp oil', 'spare oil'],
      inlineCode: ['wick'],
      codeBlock: ['light --at dusk <lamp> && echo "lit"'],
      quote: ['Never leave it unattended.'],
      table: ['Season', 'Lit at', 'Winter', '16:30'],
      text: expect.stringContaining(
        '<img src=x onerror="window.pwned=1"> <a href="javascript:window.pwned=2">the log</a>',
      ) as unknown,
    };
    const inert = expect.stringContaining(
      '[a trap](javascript:window.pwned=3) and [data](data:text/html;base64,PHNjcmlwdD4=)',
    ) as unknown;
    // Streamed in seven-character pieces, the answer ends as the same elements as in one piece.
    expect(await page.evaluate(LAST_ANSWER_SHAPE)).toEqual(expected);
    expect(await page.evaluate<{ text: string }>(LAST_ANSWER_SHAPE)).toMatchObject({ text: inert });
    expect(await page.evaluate(ACTIVE_CONTENT)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'core-backend', 'chat-markdown');

    // From the room's history after a reload: the same.
    await page.reload();
    await page.locator('.answer .reactions').last().waitFor();
    expect(await page.evaluate(LAST_ANSWER_SHAPE)).toEqual(expected);
    expect(await page.evaluate(ACTIVE_CONTENT)).toEqual([]);
    // Nothing tried to run: a handler or script URL refused by the page's CSP would be reported.
    expect(errors).toEqual([]);
  }, 120_000);

  it('fits every panel in the window at 1280×800 and on a phone (390×844), axe clean at both', async () => {
    const name = 'Lighthouse keeping, with a name long enough to need wrapping';
    const { admin, id } = await markdownWorkspace(name);
    const call = (method: string, path: string, body?: unknown) =>
      stack.core.call(method, `/api/workspaces/${id}${path}`, admin.token, body);
    // A document with a long name, processed; two rooms with a long name and an answer each.
    const form = new FormData();
    const pdf = await textPdf(1, () => 'The lamp is lit at dusk.');
    form.append(
      'file',
      new Blob([new Uint8Array(pdf)]),
      'lighthouse-keeping-handbook-winter-edition-with-the-tide-tables-2026.pdf',
    );
    const doc = await expectJson<{ id: string }>(
      fetch(`${stack.core.url}/api/workspaces/${id}/documents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}` },
        body: form,
      }),
      201,
    );
    await waitFor(
      async () =>
        (await expectJson<{ state: string }>(call('GET', `/documents/${doc.id}`), 200)).state ===
        'done',
      { what: 'the document done', timeoutMs: 120_000, intervalMs: 200 },
    );
    for (const room of [
      'Oil and wicks',
      'The lamp schedule for the winter months and spring tides',
    ]) {
      const created = await expectJson<{ id: string }>(call('POST', '/rooms', { name: room }), 201);
      const answer = await call('POST', `/rooms/${created.id}/messages`, { chat: 'When?' });
      expect(answer.status).toBe(200);
      await answer.text();
    }

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const sized = await browser.newContext({ viewport });
      try {
        const page = await sized.newPage();
        const errors = collectErrors(page);
        await page.goto(`${stack.core.url}/chat`);
        // Logged out, only the log-in form shows: no panels, no account bar.
        await page.getByRole('heading', { name: 'Log in' }).waitFor();
        expect(await page.locator('#app-view').isVisible()).toBe(false);
        expect(await page.locator('#account').isVisible()).toBe(false);
        expect(await page.evaluate(OVERFLOWS)).toEqual([]);
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, 'core-backend', `chat-${size}-login`);

        await logIn(page, name);
        await page.locator('.answer .reactions').waitFor();
        await page
          .locator('.document .status')
          .filter({ hasText: 'done' })
          .waitFor({ state: 'attached' });
        const side = page.locator('#side');
        const chat = page.locator('.chat');
        const toggle = page.getByRole('button', { name: 'Documents and chats' });
        expect(await page.evaluate(OVERFLOWS)).toEqual([]);
        expect(await seriousViolations(page)).toEqual([]);
        expect(await chat.isVisible()).toBe(true);
        // On a phone the conversation takes the screen; the side panel waits behind its button.
        expect(await side.isVisible()).toBe(size === 'desktop');
        expect(await toggle.isVisible()).toBe(size === 'phone');
        await screenshot(page, 'core-backend', `chat-${size}`);

        if (size === 'phone') {
          await toggle.click();
          expect(await toggle.getAttribute('aria-expanded')).toBe('true');
          expect(await side.isVisible()).toBe(true);
          expect(await chat.isVisible()).toBe(false);
          expect(await page.evaluate(OVERFLOWS)).toEqual([]);
          expect(await seriousViolations(page)).toEqual([]);
          await screenshot(page, 'core-backend', 'chat-phone-side');
          // Picking a room brings its conversation back.
          await side.getByRole('button', { name: 'Oil and wicks' }).click();
          await waitFor(async () => await chat.isVisible(), {
            what: 'the conversation shown',
            timeoutMs: 10_000,
          });
          expect(await side.isVisible()).toBe(false);
          expect(await toggle.getAttribute('aria-expanded')).toBe('false');
          // The focus, on the room's button that went out of sight, moves to the question.
          expect(await page.evaluate('document.activeElement.id')).toBe('question');
        }
        expect(errors).toEqual([]);
      } finally {
        await sized.close();
      }
    }
  }, 240_000);
});
