/** The converter built as `main.ts` builds it, on a free loopback port; plus documents to convert. */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { createLogger, loadConfig, serveInProcess, type RunningServer } from '@pelita/kit';
import { requireEnv } from '@pelita/testenv';
import { createOfficeConverterService, settingsSchema } from '../../../src';

// LibreOffice comes from `make testenv` (document-tools); a missing one fails here, by name.
const { SOFFICE_BIN } = requireEnv('SOFFICE_BIN');

const run = promisify(execFile);

export interface ConverterUnderTest {
  url: string;
  /** POSTs files (field `file` for /convert, `files` for /merge). */
  post(
    path: '/convert' | '/merge',
    files: Array<{ name: string; bytes: Buffer }>,
  ): Promise<Response>;
  stop(): Promise<void>;
}

export async function startConverter(
  env: Record<string, string> = {},
): Promise<ConverterUnderTest> {
  const settings = loadConfig(settingsSchema, { SOFFICE_BIN, ...env });
  const logger = createLogger({
    name: 'office-converter',
    level: 'warn',
    destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
  });
  const service = createOfficeConverterService(settings, logger);
  const running: RunningServer = await serveInProcess(service, logger);
  return {
    url: running.url,
    post(path, files) {
      const form = new FormData();
      const field = path === '/convert' ? 'file' : 'files';
      for (const file of files) form.append(field, new Blob([file.bytes]), file.name);
      return fetch(`${running.url}${path}`, { method: 'POST', body: form });
    },
    stop: () => running.stop(),
  };
}

/** Converts `text` (written as `name`) with a real LibreOffice run, e.g. `notes.txt` → `docx`. */
export async function officeFile(name: string, content: string, to: string): Promise<Buffer> {
  return (await officeFiles({ [name]: content }, to))[name]!;
}

/**
 * Converts several texts (each written under its name, names with distinct stems) to `to` in
 * one LibreOffice run: one start-up of a few seconds for all of them, not one each.
 */
export async function officeFiles(
  contents: Record<string, string>,
  to: string,
): Promise<Record<string, Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), 'converter-doc-'));
  const stem = (name: string) => name.slice(0, name.lastIndexOf('.'));
  try {
    const names = Object.keys(contents);
    for (const name of names) await writeFile(join(dir, name), contents[name]!);
    await run('soffice', [
      '--headless',
      '--norestore',
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--convert-to',
      to,
      '--outdir',
      join(dir, 'out'),
      ...names.map((name) => join(dir, name)),
    ]);
    const converted: Record<string, Buffer> = {};
    for (const name of names) {
      converted[name] = await readFile(join(dir, 'out', `${stem(name)}.${to.split(':')[0]}`));
    }
    return converted;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Text of a PDF (poppler), and its page count. */
export async function pdfText(pdf: Buffer): Promise<{ text: string; pages: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'converter-pdf-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    const { stdout: text } = await run('pdftotext', [join(dir, 'in.pdf'), '-']);
    const { stdout: info } = await run('pdfinfo', [join(dir, 'in.pdf')]);
    return { text, pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A stand-in `soffice` or `pandoc` (a shell script): `--version` answers, a conversion runs `body`. */
export async function standInTool(dir: string, body: string): Promise<string> {
  const path = join(dir, `tool-${Math.random().toString(36).slice(2)}.sh`);
  await writeFile(
    path,
    `#!/bin/sh\n[ "$1" = --version ] && { echo 'stand-in'; exit 0; }\n${body}\n`,
  );
  await chmod(path, 0o755);
  return path;
}

/**
 * A `.docx` of one `word/document.xml` as given (zipped by Info-ZIP's `zip`): enough for the
 * text fallback, and any XML at all, which no office suite would write.
 */
export async function docxWithDocumentXml(xml: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'converter-docx-'));
  try {
    await mkdir(join(dir, 'word'));
    await writeFile(join(dir, 'word', 'document.xml'), xml);
    await run('zip', ['-q', '-r', 'document.docx', 'word'], { cwd: dir });
    return await readFile(join(dir, 'document.docx'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
