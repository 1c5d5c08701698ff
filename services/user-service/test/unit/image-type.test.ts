import { detectImageType } from '../../src/users/profile-photos';

describe('image type detection by leading bytes', () => {
  it.each([
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0, 0])],
    ['image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])],
    ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])],
  ])('recognises %s', (type, data) => {
    expect(detectImageType(data)).toBe(type);
  });

  it.each([
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['GIF', Buffer.from('GIF89a')],
    ['empty', Buffer.alloc(0)],
    [
      'a RIFF that is not WebP',
      Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]),
    ],
  ])('refuses %s', (_case, data) => {
    expect(detectImageType(data)).toBeUndefined();
  });
});
