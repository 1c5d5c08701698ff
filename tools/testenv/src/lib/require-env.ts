// Connection settings of the servers `make testenv` started; a missing one is an error naming the
// server (tests must fail clearly, never skip silently).
import { readEnvFile } from './env-file';
import { serverForKey } from './server-keys';
import { currentSettings, envFilePath } from './settings';

/**
 * Values of `keys` from process.env, else from the env file; throws naming the missing
 * servers when any is absent. Usage: `const { POSTGRES_URL } = requireEnv('POSTGRES_URL');`
 */
export function requireEnv<K extends string>(...keys: K[]): Record<K, string> {
  const settings = currentSettings();
  const file = envFilePath(settings);
  let fromFile: Record<string, string> | undefined;
  const values = {} as Record<K, string>;
  const missing: string[] = [];
  for (const key of keys) {
    const value = process.env[key] ?? (fromFile ??= readEnvFile(file) ?? {})[key];
    if (value === undefined || value === '') missing.push(key);
    else values[key] = value;
  }
  if (missing.length > 0) {
    const what = missing.map((key) => `${key} (server: ${serverForKey(key) ?? 'unknown'})`);
    throw new Error(
      `Test environment setting missing: ${what.join(', ')}; not in process.env nor in ${file}. ` +
        'Start the test servers: run `make testenv`.',
    );
  }
  return values;
}
