/**
 * Local OCR engine: a 10-page scanned PDF (text pages rendered at 300 dpi and put back as images)
 * through the engine's MinerU task API (its own process) against `ocrmypdf` (Debian) on the same
 * file. Prints pages per minute and the share of the words each recovers. `ocrmypdf` is installed
 * from Debian on first use (it is only the baseline, not a test dependency).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@pelita/testenv';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startService } from './process';
import { report, table } from './report';

const exec = promisify(execFile);
const PAGES = 10;
const ENGINE_MAIN = join(__dirname, '..', '..', '..', 'services', 'ocr-engine', 'dist', 'main.js');
const LINES = [
  'Quarterly report of the Jakarta office, prepared for the board.',
  'Revenue rose by twelve percent while costs stayed flat.',
  'Invoices are due within thirty days of delivery.',
  'The warehouse in Surabaya opened its second loading dock.',
];

async function scannedPdf(dir: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  LINES.forEach((line, i) => page.drawText(line, { x: 50, y: 760 - i * 40, size: 13, font }));
  await writeFile(join(dir, 'text.pdf'), await doc.save());
  await exec('pdftoppm', [
    '-r',
    '300',
    '-png',
    '-singlefile',
    join(dir, 'text.pdf'),
    join(dir, 'page'),
  ]);
  const scan = await PDFDocument.create();
  const image = await scan.embedPng(await readFile(join(dir, 'page.png')));
  for (let i = 0; i < PAGES; i += 1) {
    scan.addPage([595, 842]).drawImage(image, { x: 0, y: 0, width: 595, height: 842 });
  }
  return Buffer.from(await scan.save());
}

function wordRecall(text: string): number {
  const words = (value: string) => value.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const found = new Map<string, number>();
  for (const word of words(text)) found.set(word, (found.get(word) ?? 0) + 1);
  const wanted = Array.from({ length: PAGES }, () => LINES.flatMap(words)).flat();
  let hits = 0;
  for (const word of wanted) {
    const left = found.get(word) ?? 0;
    if (left > 0) {
      hits += 1;
      found.set(word, left - 1);
    }
  }
  return hits / wanted.length;
}

async function ensureOcrmypdf(): Promise<void> {
  if (
    await exec('ocrmypdf', ['--version']).then(
      () => true,
      () => false,
    )
  )
    return;
  report('installing ocrmypdf from Debian (baseline only) ...');
  await exec('apt-get', ['install', '-y', '--no-install-recommends', 'ocrmypdf'], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

export async function run(): Promise<void> {
  await ensureOcrmypdf();
  const dir = await mkdtemp(join(tmpdir(), 'bench-ocr-'));
  const engine = await startService(ENGINE_MAIN, {
    env: { TASK_DIR: join(dir, 'tasks'), LOG_LEVEL: 'warn', OCR_DPI: '300' },
    readyPath: '/ready',
  });
  try {
    const pdf = await scannedPdf(dir);
    await writeFile(join(dir, 'scan.pdf'), pdf);

    const baselineStart = Date.now();
    await exec('ocrmypdf', [
      '--force-ocr',
      '--sidecar',
      join(dir, 'ocrmypdf.txt'),
      '--output-type',
      'pdf',
      join(dir, 'scan.pdf'),
      join(dir, 'ocrmypdf.pdf'),
    ]);
    const baselineMs = Date.now() - baselineStart;
    const baselineText = await readFile(join(dir, 'ocrmypdf.txt'), 'utf8');

    const pelitaStart = Date.now();
    const form = new FormData();
    form.append('files', new Blob([pdf]), 'scan.pdf');
    const task = (await (
      await fetch(`${engine.url}/tasks`, { method: 'POST', body: form })
    ).json()) as { task_id: string };
    await waitFor(
      async () => {
        const status = (await (await fetch(`${engine.url}/tasks/${task.task_id}`)).json()) as {
          status: string;
        };
        if (status.status === 'failed') throw new Error('the engine failed the task');
        return status.status === 'completed';
      },
      { what: 'the OCR task', timeoutMs: 600_000, intervalMs: 200 },
    );
    const pelitaMs = Date.now() - pelitaStart;
    const result = (await (await fetch(`${engine.url}/tasks/${task.task_id}/result`)).json()) as {
      results: Record<string, { md_content: string }>;
    };
    const pelitaText = result.results.scan?.md_content ?? '';

    const perMinute = (ms: number) => ((PAGES / ms) * 60_000).toFixed(1);
    report(`${PAGES}-page scanned PDF (300 dpi), OCR with tesseract`);
    table([
      {
        path: 'ocrmypdf (all cores)',
        'pages/min': perMinute(baselineMs),
        'words recovered': wordRecall(baselineText).toFixed(3),
      },
      {
        path: 'ocr-engine, one task',
        'pages/min': perMinute(pelitaMs),
        'words recovered': wordRecall(pelitaText).toFixed(3),
      },
    ]);
    table([
      {
        figure: 'pages/min ratio (engine / ocrmypdf)',
        measured: (baselineMs / pelitaMs).toFixed(2),
        target: '-',
      },
    ]);
  } finally {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
