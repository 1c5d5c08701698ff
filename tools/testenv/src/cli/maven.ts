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
const DEPENDENCY_PLUGIN = {
  groupId: 'org.apache.maven.plugins',
  artifactId: 'maven-dependency-plugin',
  version: '3.8.1',
};

const element = (name: string, value: string) => `<${name}>${value}</${name}>`;

/** A pom whose only use is the dependency plugin's `copy` of these artifacts into `outDir`. */
function copyPom(artifacts: readonly MavenArtifact[], outDir: string): string {
  const items = artifacts.map(
    ({ groupId, artifactId, version, type }) =>
      `<artifactItem>${[
        element('groupId', groupId),
        element('artifactId', artifactId),
        element('version', version),
        element('type', type),
      ].join('')}</artifactItem>`,
  );
  const plugin = Object.entries(DEPENDENCY_PLUGIN).map(([name, value]) => element(name, value));
  return [
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    '<modelVersion>4.0.0</modelVersion>',
    '<groupId>pelita.local</groupId><artifactId>testenv-downloads</artifactId><version>0</version>',
    '<packaging>pom</packaging>',
    `<build><plugins><plugin>${plugin.join('')}<configuration>`,
    element('outputDirectory', outDir),
    `<artifactItems>${items.join('')}</artifactItems>`,
    '</configuration></plugin></plugins></build>',
    '</project>',
    '',
  ].join('\n');
}

/** Where fetchMavenArtifacts puts an artifact. */
export function mavenArtifactFile(artifact: MavenArtifact, outDir: string): string {
  const { artifactId, version, type } = artifact;
  return path.join(outDir, `${artifactId}-${version}.${type}`);
}

/**
 * Copies the artifacts into `outDir` (via the local Maven repository) with one mvn run. One run,
 * not one per artifact: each run starts a JVM and loads the plugin, which on a machine busy with
 * Go builds took two to four minutes per artifact.
 */
export async function fetchMavenArtifacts(
  artifacts: readonly MavenArtifact[],
  outDir: string,
): Promise<void> {
  const mvn = findExecutable('mvn');
  if (mvn === undefined) throw new Error('mvn not found on PATH');
  fs.mkdirSync(outDir, { recursive: true });
  // Its own directory, so no pom.xml of the caller's gets involved.
  const project = fs.mkdtempSync(path.join(outDir, '.mvn-copy-'));
  try {
    fs.writeFileSync(path.join(project, 'pom.xml'), copyPom(artifacts, path.resolve(outDir)));
    await runChecked(mvn, ['-B', '-q', '-Dstyle.color=never', 'dependency:copy'], {
      cwd: project,
      timeoutMs: 30 * 60_000,
    });
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}
