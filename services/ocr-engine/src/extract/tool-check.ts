/** Start-up check: poppler and tesseract are installed, with every configured OCR language. */
import { runTool, ToolError } from '@pelita/kit';

export async function checkTools(languages: string, timeoutMs: number): Promise<void> {
  for (const tool of ['pdfinfo', 'pdftotext', 'pdftoppm', 'pdfimages']) {
    await runTool(tool, ['-v'], { timeoutMs });
  }
  const listed = await runTool('tesseract', ['--list-langs'], { timeoutMs });
  const installed = new Set(
    listed
      .split('\n')
      .slice(1)
      .map((line) => line.trim()),
  );
  const missing = languages.split('+').filter((language) => !installed.has(language));
  if (missing.length > 0) {
    throw new ToolError(
      `tesseract lacks the OCR_LANGUAGES ${missing.join(', ')} (installed: ${[...installed].filter(Boolean).join(', ')})`,
      'tesseract',
    );
  }
}
