/** Response timestamps in `APP_TIMEZONE`: ISO 8601 with that zone's offset (`2026-01-02T10:00:00.000+07:00`). */
export type FormatTimestamp = (date: Date) => string;

export function timestampFormatter(timeZone: string): FormatTimestamp {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return function formatTimestamp(date) {
    const field = Object.fromEntries(parts.formatToParts(date).map((p) => [p.type, p.value]));
    const local = `${field.year}-${field.month}-${field.day}T${field.hour}:${field.minute}:${field.second}`;
    const millis = String(date.getUTCMilliseconds()).padStart(3, '0');
    const offsetMinutes = Math.round(
      (Date.parse(`${local}Z`) - (date.getTime() - date.getUTCMilliseconds())) / 60_000,
    );
    if (offsetMinutes === 0 && timeZone === 'UTC') return `${local}.${millis}Z`;
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return `${local}.${millis}${offset}`;
  };
}
