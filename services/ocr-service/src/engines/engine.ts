/**
 * What the worker needs of an OCR engine, whichever it is (`local`: the self-hosted MinerU API;
 * `cloud`: MinerU's v4 task API): a file in, the seed's per-page lists out, progress on the way.
 */

/** The seed's `content_list` item: one block of a page (pages count from 1). */
export interface ContentItem {
  page: number;
  type: string;
  content: string;
}

/** The seed's `md_content_list` item: the Markdown of one page. */
export interface PageMarkdown {
  page: number;
  markdown: string;
}

export interface OcrOutput {
  contentList: ContentItem[];
  mdContentList: PageMarkdown[];
}

export interface OcrRequest {
  path: string;
  /** The file name the engine sees (its extension tells the type). */
  name: string;
  /** The seed's `type_ocr`: `representasi` adds image descriptions. */
  typeOcr: 'ekstrak_only' | 'representasi';
  representasiCount: number;
}

/**
 * Pages done of the pages to do; the worker maps it onto the 20–80 % `ocr_polling` range. Called
 * with (0, 0) once the engine has the file (the `uploading` stage ends there).
 */
export type OnEngineProgress = (done: number, total: number) => void;

export interface OcrEngine {
  readonly name: 'local' | 'cloud';
  process(
    request: OcrRequest,
    onProgress: OnEngineProgress,
    signal?: AbortSignal,
  ): Promise<OcrOutput>;
}

/** The engine ran out of its poll budget (the seed: `Task timeout`, error code 504). */
export class EngineTimeoutError extends Error {
  readonly code = 504;
  constructor() {
    super('Task timeout');
    this.name = 'EngineTimeoutError';
  }
}

/** The engine answered that the task failed, or answered something unusable. */
export class EngineFailedError extends Error {
  constructor(
    message: string,
    readonly code: string | number = 502,
  ) {
    super(message);
    this.name = 'EngineFailedError';
  }
}
