// The env file `up` writes and tests read: `KEY=VALUE` lines, `#` comments, no quoting.
import fs from 'node:fs';

const KEY = /^[A-Z_][A-Z0-9_]*$/;

export function parseEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    if (eq < 0 || !KEY.test(key)) throw new Error(`env file line ${index + 1}: expected KEY=VALUE`);
    values[key] = line.slice(eq + 1);
  }
  return values;
}

export function formatEnv(values: Record<string, string>, comment?: string): string {
  const lines = comment === undefined ? [] : comment.split('\n').map((l) => `# ${l}`);
  for (const [key, value] of Object.entries(values)) {
    // Reject what parseEnv could not read back rather than write a file that lies.
    if (!KEY.test(key)) throw new Error(`invalid env key ${JSON.stringify(key)}`);
    if (/[\r\n]/.test(value) || value !== value.trim()) {
      throw new Error(`env value of ${key} has a line break or surrounding blanks`);
    }
    lines.push(`${key}=${value}`);
  }
  return lines.join('\n') + '\n';
}

/** The file's values, or undefined when it does not exist. */
export function readEnvFile(file: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseEnv(text);
}

/** Writes via a rename so a reader never sees half a file. */
export function writeEnvFile(file: string, values: Record<string, string>, comment?: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, formatEnv(values, comment), { mode: 0o644 });
  fs.renameSync(tmp, file);
}

/** Copies values into `target` except keys it already has: explicit settings win over the file. */
export function applyMissing(
  target: Record<string, string | undefined>,
  values: Record<string, string>,
): void {
  for (const [key, value] of Object.entries(values)) {
    if (target[key] === undefined) target[key] = value;
  }
}
