/**
 * Moves a file through MinerU's states once its bytes are there: `pending` for the queue time,
 * `running` page by page (the per-page latency; poppler reads the real text first), `converting`
 * while the archive is built, then `done` or `failed` with MinerU's error code.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '@pelita/kit';
import { ERROR_CODES, messageOf } from './error-codes';
import type { Fault } from './faults';
import { mineruTime, type FileTask } from './file-task';
import { sniffFileKind } from './file-kind';
import { pdfPageCount, pdfPages } from './pdf-text';
import { buildArchive, imagePath, type ArchiveInput } from './result-archive';
import { documentFromImage, documentFromPages } from './result-content';
import { zipBomb } from './zip-bomb';
import type { ZipMethod } from './zip-writer';

export interface ProcessingSettings {
  queueMs: number;
  pageMs: number;
  convertingMs: number;
  maxPages: number;
  zipMethod: ZipMethod;
}

class TaskFailure extends Error {
  constructor(
    readonly code: number,
    message = messageOf(code),
  ) {
    super(message);
  }
}

export class TaskProcessor {
  private readonly stopping = new AbortController();
  private workDir: Promise<string> | undefined;

  constructor(
    private readonly settings: () => ProcessingSettings,
    private readonly newZipId: () => string,
  ) {}

  /** Runs in the background; never rejects. */
  start(task: FileTask, bytes: Buffer, faults: Fault[]): void {
    task.faults = faults.map((fault) => fault.kind);
    task.state = 'pending';
    task.uploadedBytes = bytes.length;
    this.run(task, bytes, faults).catch((err: unknown) => {
      if (this.stopping.signal.aborted) return;
      task.state = 'failed';
      task.errCode = err instanceof TaskFailure ? err.code : ERROR_CODES.parseFailed;
      task.errMsg = errorMessage(err);
    });
  }

  /** Stops every wait (the tasks stay where they are) and removes the work files. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.workDir) await rm(await this.workDir, { recursive: true, force: true });
  }

  private async run(task: FileTask, bytes: Buffer, faults: Fault[]): Promise<void> {
    const settings = this.settings();
    const fail = faults.find((fault) => fault.kind === 'fail');
    const slow = faults.find((fault) => fault.kind === 'slow');
    const badZip = faults.find((fault) => fault.kind === 'bad-zip');
    const bomb = faults.find((fault) => fault.kind === 'zip-bomb');
    const neverFinish = faults.some((fault) => fault.kind === 'never-finish');
    await this.wait(settings.queueMs);

    const { document, original } = await this.extract(task, bytes, settings.maxPages);
    task.state = 'running';
    task.startTime = mineruTime(new Date());
    const total = task.totalPages ?? 1;
    for (let page = 0; page < total; page += 1) {
      if (fail && page >= fail.atPage) throw new TaskFailure(fail.code, fail.message);
      // Stuck before the last page, as a job that hangs at the end looks to a poller.
      if (neverFinish && page === total - 1) return;
      await this.wait(slow ? slow.pageMs : this.settings().pageMs);
      task.extractedPages = page + 1;
    }
    if (fail) throw new TaskFailure(fail.code, fail.message);

    task.state = 'converting';
    const zipId = this.newZipId();
    const input: ArchiveInput = { zipId, document, original };
    task.zip = bomb ? zipBomb(zipId, bomb) : buildArchive(input, settings.zipMethod, badZip?.mode);
    await this.wait(this.settings().convertingMs);
    task.zipId = zipId;
    task.state = 'done';
  }

  private async extract(task: FileTask, bytes: Buffer, maxPages: number) {
    const kind = sniffFileKind(bytes);
    if (kind === 'empty') throw new TaskFailure(ERROR_CODES.emptyFile);
    if (kind === 'office') {
      throw new TaskFailure(
        ERROR_CODES.conversionFailed,
        'file conversion failed: the double converts no office files',
      );
    }
    if (kind === 'unknown') throw new TaskFailure(ERROR_CODES.unsupportedFormat);
    if (kind === 'png' || kind === 'jpeg') {
      const extension = kind === 'png' ? 'png' : 'jpg';
      task.totalPages = 1;
      return {
        document: documentFromImage(imagePath(bytes, extension)),
        original: { bytes, kind: 'image' as const, extension },
      };
    }
    const path = join(await this.directory(), `${task.taskId}.pdf`);
    await writeFile(path, bytes);
    try {
      const pages = await pdfPageCount(path).catch((err: unknown) => {
        throw new TaskFailure(
          ERROR_CODES.fileReadFailed,
          `failed to read file: ${errorMessage(err)}`,
        );
      });
      if (pages > maxPages) throw new TaskFailure(ERROR_CODES.tooManyPages);
      task.totalPages = pages;
      const pdfText = await pdfPages(path).catch((err: unknown) => {
        throw new TaskFailure(ERROR_CODES.parseFailed, `parse failed: ${errorMessage(err)}`);
      });
      const document = documentFromPages(pdfText);
      return { document, original: { bytes, kind: 'pdf' as const, extension: 'pdf' } };
    } finally {
      await rm(path, { force: true });
    }
  }

  private directory(): Promise<string> {
    this.workDir ??= mkdtemp(join(tmpdir(), 'mineru-cloud-stub-'));
    return this.workDir;
  }

  private async wait(ms: number): Promise<void> {
    if (ms > 0) await sleep(ms, undefined, { signal: this.stopping.signal });
  }
}
