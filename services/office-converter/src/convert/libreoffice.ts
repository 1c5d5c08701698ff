/**
 * One LibreOffice conversion to PDF, headless, in a profile of its own: concurrent runs sharing
 * a profile collide (the second waits on the first's lock or fails), so every run gets a fresh
 * profile directory with macros switched off, and its whole process group is killed at the
 * time limit (LibreOffice forks `soffice.bin` behind `soffice`).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runTool } from '@pelita/kit';

export interface LibreOfficeOptions {
  bin: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The profile's settings: no macros run whatever the document asks, no locks, no links followed. */
const PROFILE_SETTINGS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseLocking" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`;

/**
 * Converts `input` to PDF inside `workDir` (which gets the profile and the output); resolves
 * with the PDF's path.
 */
export async function convertWithLibreOffice(
  input: string,
  workDir: string,
  options: LibreOfficeOptions,
): Promise<string> {
  const profile = join(workDir, 'profile');
  const out = join(workDir, 'out');
  await mkdir(join(profile, 'user'), { recursive: true });
  await mkdir(out, { recursive: true });
  await writeFile(join(profile, 'user', 'registrymodifications.xcu'), PROFILE_SETTINGS);
  await runTool(
    options.bin,
    [
      '--headless',
      '--norestore',
      '--nologo',
      '--nolockcheck',
      '--nodefault',
      '--nofirststartwizard',
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--convert-to',
      'pdf',
      '--outdir',
      out,
      input,
    ],
    {
      timeoutMs: options.timeoutMs,
      // LibreOffice writes caches under HOME; the root file system is read-only in the pod.
      env: { HOME: workDir },
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  // LibreOffice exits 0 even when it could not load the input: the output tells.
  const pdf = (await readdir(out)).find((name) => name.endsWith('.pdf'));
  if (!pdf) throw new Error('LibreOffice produced no PDF (the file could not be read)');
  return join(out, pdf);
}
