/**
 * MinerU's content list (both its APIs produce the same items) to the seed's two lists: blocks
 * `{page, type, content}` and one Markdown text per page. MinerU counts pages from 0, the seed's
 * lists from 1.
 */
import type { ContentItem, OcrOutput, PageMarkdown } from './engine';

/** The MinerU item fields used here; others (bbox, text_level, ...) are ignored. */
export interface MineruItem {
  type: string;
  page_idx: number;
  text?: string;
  text_level?: number;
  img_path?: string;
  image_caption?: string[];
  table_body?: string;
  table_caption?: string[];
  latex?: string;
}

function contentOf(item: MineruItem): string {
  switch (item.type) {
    case 'image':
      return (item.image_caption ?? []).join('\n');
    case 'table':
      return [...(item.table_caption ?? []), item.table_body ?? ''].filter(Boolean).join('\n');
    case 'equation':
      return item.latex ?? item.text ?? '';
    default:
      return item.text ?? '';
  }
}

function markdownOf(item: MineruItem): string {
  if (item.type === 'image') {
    return [`![](${item.img_path ?? ''})`, ...(item.image_caption ?? [])].join('\n\n');
  }
  if (item.type === 'text' && item.text_level)
    return `${'#'.repeat(item.text_level)} ${item.text ?? ''}`;
  return contentOf(item);
}

export function toSeedLists(items: readonly MineruItem[]): OcrOutput {
  const contentList: ContentItem[] = items.map((item) => ({
    page: item.page_idx + 1,
    type: item.type,
    content: contentOf(item),
  }));
  const pages = new Map<number, string[]>();
  for (const item of items) {
    const markdown = markdownOf(item);
    if (markdown.trim() === '') continue;
    pages.set(item.page_idx + 1, [...(pages.get(item.page_idx + 1) ?? []), markdown]);
  }
  const mdContentList: PageMarkdown[] = [...pages.entries()]
    .sort(([a], [b]) => a - b)
    .map(([page, parts]) => ({ page, markdown: parts.join('\n\n') }));
  return { contentList, mdContentList };
}
