/** Reads the Rego policies shipped with the operator (the image copies `policies/` there). */
import fs from 'node:fs';
import path from 'node:path';
import type { PolicyFiles } from './render';

export function loadPolicies(dir: string): PolicyFiles {
  const files = fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.rego') && !file.endsWith('_test.rego'))
    .sort();
  if (files.length === 0) throw new Error(`no .rego policies in ${dir}`);
  return Object.fromEntries(
    files.map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]),
  );
}
