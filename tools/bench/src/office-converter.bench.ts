/**
 * Office conversion: 20 small .docx files through the converter service (its own process, two
 * LibreOffice runs at once, each in a private profile) against the baseline of one cold
 * `soffice --convert-to pdf` per file, one after another. Prints both wall times and the speed-up.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startService } from './process';
import { report, table } from './report';

const exec = promisify(execFile);
const FILES = 20;
const CONVERTER_MAIN = join(
  __dirname,
  '..',
  '..',
  '..',
  'services',
  'office-converter',
  'dist',
  'main.js',
);

async function soffice(dir: string, args: string[]): Promise<void> {
  await exec('soffice', [
    '--headless',
    '--norestore',
    `-env:UserInstallation=file://${join(dir, 'profile')}`,
    ...args,
  ]);
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-office-'));
  const converter = await startService(CONVERTER_MAIN, {
    env: { MAX_CONCURRENT_CONVERSIONS: '2', LOG_LEVEL: 'warn' },
    readyPath: '/ready',
  });
  try {
    // The inputs: small Word documents LibreOffice writes from text.
    for (let i = 0; i < FILES; i += 1) {
      await writeFile(
        join(dir, `doc-${i}.txt`),
        `Document ${i}\n\nA short paragraph of text, number ${i}.\n`,
      );
    }
    await soffice(dir, [
      '--convert-to',
      'docx:MS Word 2007 XML',
      '--outdir',
      join(dir, 'docx'),
      ...Array.from({ length: FILES }, (_, i) => join(dir, `doc-${i}.txt`)),
    ]);
    const docs = await Promise.all(
      Array.from({ length: FILES }, (_, i) => readFile(join(dir, 'docx', `doc-${i}.docx`))),
    );

    // Baseline: what a script does without the service — one cold LibreOffice per file.
    const coldStart = Date.now();
    for (let i = 0; i < FILES; i += 1) {
      const profileDir = join(dir, `cold-${i}`);
      await soffice(profileDir, [
        '--convert-to',
        'pdf',
        '--outdir',
        join(dir, 'cold-out'),
        join(dir, 'docx', `doc-${i}.docx`),
      ]);
    }
    const coldMs = Date.now() - coldStart;

    const pelitaStart = Date.now();
    const answers = await Promise.all(
      docs.map(async (bytes, i) => {
        const form = new FormData();
        form.append('file', new Blob([bytes]), `doc-${i}.docx`);
        const res = await fetch(`${converter.url}/convert`, { method: 'POST', body: form });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const pelitaMs = Date.now() - pelitaStart;
    if (answers.some((status) => status !== 200))
      throw new Error(`conversions failed: ${answers.join(',')}`);

    report(`${FILES} small .docx to PDF`);
    table([
      {
        path: 'one cold soffice per file, sequential',
        'wall s': (coldMs / 1000).toFixed(1),
        'files/min': ((FILES / coldMs) * 60_000).toFixed(1),
      },
      {
        path: 'office-converter, 20 requests at once',
        'wall s': (pelitaMs / 1000).toFixed(1),
        'files/min': ((FILES / pelitaMs) * 60_000).toFixed(1),
      },
    ]);
    table([
      {
        figure: 'speed-up (cold sequential / converter)',
        measured: (coldMs / pelitaMs).toFixed(2),
        target: '> 1',
      },
    ]);
  } finally {
    await converter.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
