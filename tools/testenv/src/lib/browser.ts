/**
 * Headless Chromium (Debian's, from `make testenv`) driven by playwright-core, for the web pages'
 * tests: launched with the flags this machine needs (no sandbox as root, no background traffic:
 * the network is closed), screenshots kept as test artefacts, and axe-core's accessibility check
 * run inside a page or frame. playwright-core and axe-core are loaded on first use, so the rest
 * of the library does not pay for them.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { requireEnv } from './require-env';

/** Where screenshots go: PELITA_TEST_ARTIFACTS, else `test-artifacts/` at the repository root. */
const ARTIFACTS =
  process.env.PELITA_TEST_ARTIFACTS ?? resolve(__dirname, '..', '..', '..', '..', 'test-artifacts');

export async function launchChromium(): Promise<Browser> {
  const { CHROMIUM_BIN } = requireEnv('CHROMIUM_BIN');
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM_BIN,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A full-page screenshot in `<artifacts>/<folder>/<name>.png`; its path. */
export async function screenshot(page: Page, folder: string, name: string): Promise<string> {
  const dir = join(ARTIFACTS, folder);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

let axeSource: string | undefined;

/**
 * axe-core's WCAG 2 A/AA rules over the page or frame as it is now; returns the serious and
 * critical violations. axe is evaluated through the DevTools protocol, so the page's own
 * Content-Security-Policy (no inline or foreign scripts) stays in force for everything else.
 */
export async function seriousViolations(target: Page | Frame): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await target.evaluate(axeSource);
  // A string, run in the page: this program is type-checked without the DOM's types.
  const violations = await target.evaluate<AxeViolation[]>(`
    axe
      .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((result) =>
        result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target })),
        })),
      )
  `);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
