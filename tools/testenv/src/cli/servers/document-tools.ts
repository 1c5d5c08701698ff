// The document tools the OCR engine and the office converter run: LibreOffice (headless, the
// same packages as images/office-converter.Dockerfile), pandoc (its second converter), unzip (the
// .docx text fallback), poppler and tesseract with English and Indonesian data
// (images/ocr-engine.Dockerfile). Not a server: Debian packages on the PATH; starting or stopping
// does nothing.
import fs from 'node:fs';
import { run } from '../proc';
import { type Server } from '../server';

const PACKAGES = [
  'libreoffice-writer-nogui',
  'libreoffice-calc-nogui',
  'libreoffice-impress-nogui',
  'fonts-liberation2',
  'fonts-dejavu-core',
  'pandoc',
  'unzip',
  'poppler-utils',
  'tesseract-ocr',
  'tesseract-ocr-eng',
  'tesseract-ocr-ind',
];
const BINARIES = [
  '/usr/bin/soffice',
  '/usr/bin/pandoc',
  '/usr/bin/unzip',
  '/usr/bin/pdftotext',
  '/usr/bin/tesseract',
];
const TESSDATA = ['eng', 'ind'].map(
  (lang) => `/usr/share/tesseract-ocr/5/tessdata/${lang}.traineddata`,
);

export const documentTools: Server = {
  name: 'document-tools',
  startTimeoutMs: 10_000,

  isInstalled: () => [...BINARIES, ...TESSDATA].every((file) => fs.existsSync(file)),

  install: (ctx) => ctx.apt(PACKAGES),

  start: () => Promise.resolve(),

  isReady: async () => (await run('tesseract', ['--list-langs'])).code === 0,

  env: () => ({ SOFFICE_BIN: '/usr/bin/soffice', TESSERACT_BIN: '/usr/bin/tesseract' }),

  stop: () => Promise.resolve(),
};
