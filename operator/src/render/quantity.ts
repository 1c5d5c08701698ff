/**
 * Kubernetes quantities in the canonical form the apiserver stores (`0.5` → `500m`, `1024Mi` →
 * `1Gi`), so a desired object compares equal to the live one instead of looking drifted on
 * every reconcile. Follows apimachinery's `Quantity.CanonicalizeBytes` for the suffixes the
 * CRD accepts.
 */

const DECIMAL_SUFFIXES: ReadonlyArray<[string, number]> = [
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
];
const BINARY_SUFFIXES: ReadonlyArray<[string, number]> = [
  ['', 0],
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
];
const NANO = 9;

/** A value in nano units (10^-9), exact for every quantity the CRD accepts. */
function toNanos(digits: string, fraction: string, scale: bigint): bigint {
  const whole = BigInt(digits + fraction.padEnd(NANO, '0').slice(0, NANO));
  // Below a nano the apiserver rounds up; so do we.
  const rest = fraction.slice(NANO).replace(/0+$/, '');
  return whole * scale + (rest.length > 0 ? 1n : 0n);
}

export function canonicalQuantity(quantity: string): string {
  const match = /^([0-9]+)(?:\.([0-9]+))?([a-zA-Z]*)$/.exec(quantity);
  if (!match) throw new Error(`not a quantity: ${quantity}`);
  const [, digits = '0', fraction = '', suffix = ''] = match;
  const binary = BINARY_SUFFIXES.find(([s]) => s === suffix && s !== '');
  const decimal = DECIMAL_SUFFIXES.find(([s]) => s === suffix);
  if (!binary && !decimal) throw new Error(`unknown quantity suffix: ${quantity}`);
  const nanos = binary
    ? toNanos(digits, fraction, 2n ** BigInt(binary[1]))
    : toNanos(digits, fraction, 1n) * 10n ** BigInt(Math.max(0, decimal![1]));
  // Suffixes below one divide the nano count, rounding up like the apiserver.
  const divisor = decimal && decimal[1] < 0 ? 10n ** BigInt(-decimal[1]) : 1n;
  const value = (nanos + divisor - 1n) / divisor;
  if (value === 0n) return '0';

  const scale = 10n ** BigInt(NANO);
  // A binary quantity stays binary when it is a whole number of bytes of at least 1024.
  if (binary && value % scale === 0n && value / scale >= 1024n) {
    const bytes = value / scale;
    for (const [s, exponent] of [...BINARY_SUFFIXES].reverse()) {
      const unit = 2n ** BigInt(exponent);
      if (bytes % unit === 0n) return `${bytes / unit}${s}`;
    }
  }
  for (const [s, exponent] of [...DECIMAL_SUFFIXES].reverse()) {
    const unit = 10n ** BigInt(exponent + NANO);
    if (value % unit === 0n) return `${value / unit}${s}`;
  }
  return `${value}n`;
}
