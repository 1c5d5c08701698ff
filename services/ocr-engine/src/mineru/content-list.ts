/**
 * MinerU's content list: the one shape its self-hosted API returns (`content_list`) and its cloud
 * API's result archive holds (`*_content_list.json`). Pelita's engine and the cloud double write
 * it, the OCR worker reads it; all three take it from here. Pages count from 0 (`page_idx`);
 * boxes are corners on a 0–1000 grid of the page, as MinerU normalises them.
 */
export type Box = [number, number, number, number];

/** A text block; `text_level` marks a title (1 the highest) and is absent for body text. */
export interface TextItem {
  type: 'text';
  text: string;
  text_level?: number;
  page_idx: number;
  bbox: Box;
}

export interface ImageItem {
  type: 'image';
  img_path: string;
  image_caption: string[];
  image_footnote: string[];
  page_idx: number;
  bbox: Box;
}

/** What Pelita's engine and the cloud double write. */
export type ContentItem = TextItem | ImageItem;

/**
 * An item as a reader takes it: MinerU writes more types than Pelita does (`table`, `equation`,
 * and new ones across versions), so any `type`, with the fields of the known ones where present.
 */
export interface ContentListEntry {
  type: string;
  page_idx: number;
  bbox?: Box;
  text?: string;
  text_level?: number;
  img_path?: string;
  image_caption?: string[];
  image_footnote?: string[];
  table_body?: string;
  table_caption?: string[];
  latex?: string;
}
