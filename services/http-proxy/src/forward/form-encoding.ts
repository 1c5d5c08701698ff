/**
 * `application/x-www-form-urlencoded` for JSON objects and arrays, in the bracket notation that
 * PHP, Rails, qs (Express) and axios agree on: `{a: {b: 1}}` → `a[b]=1`, `{a: [1, 2]}` →
 * `a[]=1&a[]=2`, `{a: [{b: 1}]}` → `a[0][b]=1` (an index keeps one item's fields together),
 * `null` → empty value, empty objects and arrays → nothing; a top-level array is keyed by index
 * (`0=x&1=y`). Spaces become `+`.
 */
export function encodeForm(value: object): string {
  const pairs = new URLSearchParams();
  for (const [key, item] of Object.entries(value)) appendPairs(pairs, key, item);
  return pairs.toString();
}

function appendPairs(pairs: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined) return;
  if (Array.isArray(value)) {
    const flat = value.every((item) => !isStructured(item));
    value.forEach((item: unknown, index) => {
      appendPairs(pairs, flat ? `${key}[]` : `${key}[${index}]`, item);
    });
  } else if (isStructured(value)) {
    for (const [name, item] of Object.entries(value)) appendPairs(pairs, `${key}[${name}]`, item);
  } else {
    pairs.append(key, scalarText(value));
  }
}

/** JSON scalars: strings as they are, numbers and booleans as JSON writes them, null as nothing. */
function scalarText(value: unknown): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isStructured(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
