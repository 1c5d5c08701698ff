// Artifacts from Maven Central, fetched through mvn (the registry's ordinary client).
import fs from 'node:fs';
import path from 'node:path';
import { findExecutable, runChecked } from './proc';

export interface MavenArtifact {
  groupId: string;
  artifactId: string;
  version: string;
  type: string;
}

// Pinned so a new plugin release cannot change behaviour under us.
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

/** Copies the artifact into `outDir` (via the local Maven repository) and returns its path. */
export async function fetchMavenArtifact(artifact: MavenArtifact, outDir: string): Promise<string> {
  const mvn = findExecutable('mvn');
  if (mvn === undefined) throw new Error('mvn not found on PATH');
  fs.mkdirSync(outDir, { recursive: true });
  const { groupId, artifactId, version, type } = artifact;
  await runChecked(
    mvn,
    [
      '-B',
      '-q',
      '-Dstyle.color=never',
      `${DEPENDENCY_PLUGIN}:copy`,
      `-Dartifact=${groupId}:${artifactId}:${version}:${type}`,
      `-DoutputDirectory=${outDir}`,
    ],
    // cwd: outDir so a pom.xml in the caller's directory cannot get involved.
    { cwd: outDir, timeoutMs: 30 * 60_000 },
  );
  return path.join(outDir, `${artifactId}-${version}.${type}`);
}
