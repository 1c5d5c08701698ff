/**
 * The chat page and the embedded widget in a real browser (headless Chromium through
 * playwright-core), against the whole platform: the user service behind the sign-in relay, the
 * real OCR chain for an uploaded document, the LLM stand-in for answers. Screenshots are kept in
 * `test-artifacts/core-backend/`; axe-core must find no serious or critical violation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium, screenshot, seriousViolations, waitFor } from '@pelita/testenv';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { textPdf } from '../../../ocr-service/test/integration/support/documents';
import { ADMIN, expectJson } from './support/core-stack';
import { startDocumentStack, type DocumentStack } from './support/document-stack';

const QUESTION = 'When does the lighthouse keeper light the lamp?';

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

  beforeAll(async () => {
    stack = await startDocumentStack();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
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
});
