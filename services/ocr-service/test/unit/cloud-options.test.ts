import type { ContentListEntry } from '@pelita/ocr-engine';
import { keepImages } from '../../src/engines/cloud-engine';

describe('keepImages (type_ocr on the cloud result)', () => {
  const text = (page: number): ContentListEntry => ({
    type: 'text',
    text: `t${page}`,
    page_idx: page,
  });
  const image = (page: number): ContentListEntry => ({
    type: 'image',
    img_path: `i${page}.png`,
    page_idx: page,
  });
  const items = [text(0), image(0), text(1), image(1), image(2)];

  it('keeps no image for ekstrak_only, whatever the count', () => {
    expect(keepImages(items, { typeOcr: 'ekstrak_only', representasiCount: 3 })).toEqual([
      text(0),
      text(1),
    ]);
  });

  it('keeps the first representasi_count images in reading order, and every other block', () => {
    expect(keepImages(items, { typeOcr: 'representasi', representasiCount: 2 })).toEqual([
      text(0),
      image(0),
      text(1),
      image(1),
    ]);
    expect(keepImages(items, { typeOcr: 'representasi', representasiCount: 0 })).toEqual([
      text(0),
      text(1),
    ]);
  });
});
