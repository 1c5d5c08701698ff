/**
 * Headless Chromium (Debian's, from `make testenv`) driven by playwright-core, as the core
 * backend's page tests run it: no sandbox as root, no background traffic, screenshots kept under
 * `test-artifacts/license-service/`, axe-core's WCAG 2 A/AA rules run through the DevTools
 * protocol (the pages' CSP allows no script of their own).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { requireEnv } from '@pelita/testenv';
import { chromium, type Browser, type Page } from 'playwright-core';

const ARTIFACTS =
  process.env.PELITA_TEST_ARTIFACTS ??
  resolve(__dirname, '..', '..', '..', '..', '..', 'test-artifacts');

export function launchChromium(): Promise<Browser> {
  const { CHROMIUM_BIN } = requireEnv('CHROMIUM_BIN');
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

export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(ARTIFACTS, 'license-service');
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

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical WCAG 2 A/AA violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(`
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
