/**
 * The seed's value normalisation, applied at any depth (arrays, JSON documents): BigInt → string,
 * Date → ISO 8601, binary → Base64, anything else unchanged. Two cases the seed left to chance
 * are decided here: numbers JSON cannot carry (NaN, ±Infinity) become their text, and an invalid
 * Date becomes null.
 */

export type Row = Record<string, unknown>;

export function normaliseValue(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'object':
      return value === null ? null : normaliseObject(value);
    default:
      return value;
  }
}

function normaliseObject(value: object): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  }
  if (Array.isArray(value)) return value.map(normaliseValue);
  if (!isPlainObject(value)) return value;
  // fromEntries defines own properties, so a `__proto__` key in a JSON document stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, normaliseValue(item)]),
  );
}

/**
 * Normalises rows in place (they are freshly built by the engine and not shared). Rows are plain
 * or prototype-less objects, so for...in sees exactly their columns, without allocating a key list.
 */
export function normaliseRows(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (typeof value === 'object' || typeof value === 'bigint' || typeof value === 'number') {
        row[key] = normaliseValue(value);
      }
    }
  }
  return rows;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
