/**
 * The seed's result documents: the OCR lists split into groups of 5 pages, one document each,
 * id `{task_id}_chunk_{n}` (n from 1). Pure: the indexer stores what this builds.
 */
import type { ContentItem, OcrOutput, PageMarkdown } from '../engines/engine';

const PAGES_PER_CHUNK = 5;

/** One stored OCR chunk, with exactly the seed's fields. */
export interface ChunkDocument {
  id: string;
  chunk_number: number;
  pdf_name: string;
  pdf_id: string;
  parse_method: 'auto';
  uploaded_at: string;
  content_list: ContentItem[];
  md_content_list: PageMarkdown[];
  output_path: string;
  output_pdf_file?: string;
  metadata_document?: Record<string, unknown>;
}

export interface ChunkSource {
  taskId: string;
  pdfName: string;
  uploadedAt: Date;
  /** Public URL of the stored PDF (tasks with a local file only). */
  outputPdfFile: string | undefined;
  metadataDocument: Record<string, unknown> | undefined;
}

/** `2026/11`: the year/month folder of the upload. */
export function outputPathOf(at: Date): string {
  return `${at.getUTCFullYear()}/${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

export function chunkDocuments(output: OcrOutput, source: ChunkSource): ChunkDocument[] {
  const pages = [
    ...output.contentList.map((item) => item.page),
    ...output.mdContentList.map((item) => item.page),
  ];
  const lastPage = pages.length > 0 ? Math.max(...pages) : 0;
  const chunks = Math.max(1, Math.ceil(lastPage / PAGES_PER_CHUNK));
  return Array.from({ length: chunks }, (_, index) => {
    const first = index * PAGES_PER_CHUNK + 1;
    const inChunk = (page: number) => page >= first && page < first + PAGES_PER_CHUNK;
    return {
      id: `${source.taskId}_chunk_${index + 1}`,
      chunk_number: index + 1,
      pdf_name: source.pdfName,
      pdf_id: source.taskId,
      parse_method: 'auto' as const,
      uploaded_at: source.uploadedAt.toISOString(),
      content_list: output.contentList.filter((item) => inChunk(item.page)),
      md_content_list: output.mdContentList.filter((item) => inChunk(item.page)),
      output_path: outputPathOf(source.uploadedAt),
      ...(source.outputPdfFile ? { output_pdf_file: source.outputPdfFile } : {}),
      ...(source.metadataDocument ? { metadata_document: source.metadataDocument } : {}),
    };
  });
}
