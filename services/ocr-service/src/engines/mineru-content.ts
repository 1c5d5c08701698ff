/**
 * MinerU's content list (both its APIs produce the same items; the shape is @pelita/ocr-engine's)
 * to the seed's two lists: blocks `{page, type, content}` and one Markdown text per page. MinerU
 * counts pages from 0, the seed's lists from 1; fields other than those read here are ignored.
 */
import type { ContentListEntry } from '@pelita/ocr-engine';
import type { ContentItem, OcrOutput, PageMarkdown } from './engine';

function contentOf(item: ContentListEntry): string {
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

function markdownOf(item: ContentListEntry): string {
  if (item.type === 'image') {
    return [`![](${item.img_path ?? ''})`, ...(item.image_caption ?? [])].join('\n\n');
  }
  if (item.type === 'text' && item.text_level)
    return `${'#'.repeat(item.text_level)} ${item.text ?? ''}`;
  return contentOf(item);
}

export function toSeedLists(items: readonly ContentListEntry[]): OcrOutput {
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
