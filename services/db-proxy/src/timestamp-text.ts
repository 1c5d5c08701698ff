/**
 * Date and time text as PostgreSQL (DateStyle ISO) and MySQL send it → ISO 8601 in UTC, the form
 * the seed's normalisation gives a Date, produced here straight from the text (this runs for
 * every date of every row). Text without an offset is read as UTC, so the answer does not depend
 * on the time zone of the machine running the proxy. Text that names no real instant
 * (`infinity`, MySQL's zero date `0000-00-00`) is kept as it came: the caller sees what the
 * database holds rather than a made-up date. Precision is milliseconds, as a JavaScript Date's.
 */
const TIMESTAMP =
  /^(\d{4,})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(\.\d+)?)?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

export function timestampToIso(text: string): string {
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y = '', mo = '', d = '', h = '00', mi = '00', s = '00', fraction, sign, oh, om, os, bc] =
    m;
  // ISO 8601 counts 1 BC as year 0.
  const year = bc ? 1 - Number(y) : Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return text;
  const offsetSeconds = sign ? Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0) : 0;
  const millis = fraction ? `${fraction.slice(1)}00`.slice(0, 3) : '000';
  // The common case (UTC, years 0-9999) is only text; Date.toISOString's exact format.
  if (offsetSeconds === 0 && !bc && y.length === 4) {
    return `${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}Z`;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(millis));
  const time = date.getTime() - (sign === '-' ? -1 : 1) * offsetSeconds * 1000;
  return Number.isNaN(time) ? text : new Date(time).toISOString();
}
