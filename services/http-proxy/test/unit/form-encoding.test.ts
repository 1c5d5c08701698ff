import { encodeForm } from '../../src/forward/form-encoding';

const decoded = (value: object) => decodeURIComponent(encodeForm(value));

describe('encodeForm', () => {
  it('encodes flat objects as key=value pairs with form escaping', () => {
    expect(encodeForm({ name: 'Ann Lee', q: 'a&b=c', n: 3, ok: true })).toBe(
      'name=Ann+Lee&q=a%26b%3Dc&n=3&ok=true',
    );
  });

  it('uses bracket notation for nested objects and arrays', () => {
    expect(decoded({ user: { name: 'a', address: { city: 'b' } } })).toBe(
      'user[name]=a&user[address][city]=b',
    );
    expect(decoded({ tags: ['x', 'y'] })).toBe('tags[]=x&tags[]=y');
    expect(decoded({ items: [{ id: 1 }, { id: 2, n: [5] }] })).toBe(
      'items[0][id]=1&items[1][id]=2&items[1][n][]=5',
    );
  });

  it('keys a top-level array by index', () => {
    expect(encodeForm(['a', 'b'])).toBe('0=a&1=b');
  });

  it('sends null as an empty value and leaves out empty containers', () => {
    expect(encodeForm({ a: null, b: {}, c: [], d: 'x' })).toBe('a=&d=x');
  });

  it('round-trips through URLSearchParams for flat objects', () => {
    const value = { ключ: 'значение', emoji: '🙂', plus: '1+1' };
    expect(Object.fromEntries(new URLSearchParams(encodeForm(value)))).toEqual(value);
  });
});
