/**
 * Downloads of user-given URLs against real HTTP servers on loopback: what is allowed arrives
 * whole, everything else fails with its reason and leaves no file.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadToFile, DownloadError, type DownloadOptions } from '../../src/safe-download';
import { parseAllowedTargets } from '../../src/target-policy/allowed-targets';

const loopback = parseAllowedTargets(['127.0.0.1']);

describe('downloadToFile', () => {
  let dir: string;
  let server: Server;
  let base: string;
  const routes = new Map<string, RequestListener>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'safe-download-'));
    server = createServer((req, res) => {
      const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (route) return route(req, res);
      res.writeHead(404).end('missing');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set('/report.pdf', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7 report'),
    );
    routes.set('/named', (_req, res) =>
      res
        .writeHead(200, { 'content-disposition': 'attachment; filename="../../etc/Q3 plan.docx"' })
        .end('docx bytes'),
    );
    routes.set('/hop', (_req, res) => res.writeHead(302, { location: '/report.pdf' }).end());
    routes.set('/to-metadata', (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    );
    routes.set('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
    routes.set('/declared-big', (_req, res) =>
      res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)),
    );
    routes.set('/streamed-big', (_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 10; i += 1) res.write('y'.repeat(1000));
      res.end();
    });
    routes.set('/stall', (_req, res) => {
      res.writeHead(200);
      res.write('half');
    });
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const options = (overrides: Partial<DownloadOptions> = {}): DownloadOptions => ({
    timeoutMs: 5000,
    maxBytes: 2000,
    allowed: loopback,
    ...overrides,
  });
  const failure = async (promise: Promise<unknown>) => {
    const err = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(err).toBeInstanceOf(DownloadError);
    return err as DownloadError;
  };
  const gone = async (path: string) => expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });

  it('downloads an allowed URL, following a redirect, with its name and type', async () => {
    const dest = join(dir, 'ok');
    const result = await downloadToFile(`${base}/hop`, dest, options());
    expect(result).toEqual({
      bytes: 15,
      contentType: 'application/pdf',
      finalUrl: `${base}/report.pdf`,
      fileName: 'report.pdf',
    });
    expect(await readFile(dest, 'utf8')).toBe('%PDF-1.7 report');
  });

  it('takes the name from Content-Disposition, without its directories', async () => {
    const result = await downloadToFile(`${base}/named`, join(dir, 'named'), options());
    expect(result.fileName).toBe('Q3 plan.docx');
  });

  it('refuses loopback unless allowed, and a redirect to a link-local address', async () => {
    const dest = join(dir, 'refused');
    const refused = await failure(
      downloadToFile(`${base}/report.pdf`, dest, options({ allowed: parseAllowedTargets([]) })),
    );
    expect(refused.reason).toBe('forbidden');
    expect(refused.message).toContain('loopback');
    await gone(dest);

    const byName = await failure(
      downloadToFile(
        `${base.replace('127.0.0.1', 'localhost')}/report.pdf`,
        dest,
        options({ allowed: parseAllowedTargets([]) }),
      ),
    );
    expect(byName.reason).toBe('forbidden');

    const redirected = await failure(downloadToFile(`${base}/to-metadata`, dest, options()));
    expect(redirected.reason).toBe('forbidden');
    expect(redirected.message).toContain('link-local');
  });

  it('stops at the size cap, declared or streamed, and leaves no partial file', async () => {
    const declared = join(dir, 'declared');
    expect(
      (await failure(downloadToFile(`${base}/declared-big`, declared, options()))).reason,
    ).toBe('too_large');
    await gone(declared);
    const streamed = join(dir, 'streamed');
    expect(
      (await failure(downloadToFile(`${base}/streamed-big`, streamed, options()))).reason,
    ).toBe('too_large');
    await gone(streamed);
  });

  it('ends a stalled download at its time limit', async () => {
    const dest = join(dir, 'stalled');
    const err = await failure(downloadToFile(`${base}/stall`, dest, options({ timeoutMs: 300 })));
    expect(err.reason).toBe('timeout');
    await gone(dest);
  });

  it('reports a non-2xx answer, too many redirects, a bad scheme and an unreachable port', async () => {
    const dest = join(dir, 'other');
    const missing = await failure(downloadToFile(`${base}/nothing`, dest, options()));
    expect([missing.reason, missing.status]).toEqual(['status', 404]);
    expect((await failure(downloadToFile(`${base}/loop`, dest, options()))).message).toMatch(
      /more than 5 redirects/,
    );
    expect((await failure(downloadToFile('file:///etc/passwd', dest, options()))).reason).toBe(
      'scheme',
    );
    expect((await failure(downloadToFile('not a url', dest, options()))).reason).toBe('scheme');
    expect(
      (await failure(downloadToFile('http://127.0.0.1:1/x.pdf', dest, options()))).reason,
    ).toBe('network');
  });

  it('never quotes the credentials of the URL', async () => {
    const withCredentials = base.replace('http://', 'http://alice:s3cret@');
    const err = await failure(
      downloadToFile(`${withCredentials}/nothing`, join(dir, 'c'), options()),
    );
    expect(err.message).not.toContain('s3cret');
    expect(err.message).not.toContain('alice');
    const ok = await downloadToFile(`${withCredentials}/report.pdf`, join(dir, 'c'), options());
    expect(ok.finalUrl).toBe(`${base}/report.pdf`);
  });
});
