/** `POST /convert` (one file → PDF) and `POST /merge` (files → one PDF), answered as PDF downloads. */
import { basename, extname } from 'node:path';
import {
  clientGoneSignal,
  defineRoute,
  uploadedFile,
  workspaceOf,
  type RouteDefinition,
  type UploadedFile,
} from '@pelita/kit';
import type { RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Converter } from '../convert/converter';

export interface ConversionRoutesDeps {
  converter: Converter;
  uploadOne: RequestHandler[];
  uploadMany: RequestHandler[];
  maxMergeFiles: number;
}

const PDF_ANSWER = {
  description: 'The PDF, as a download',
  contentType: 'application/pdf',
} as const;

const errors = {
  400: { description: 'No file, or a file type that is not supported' },
  413: { description: 'A file is larger than MAX_UPLOAD_BYTES' },
  415: { description: 'Not multipart/form-data' },
  422: { description: 'The file could not be converted (broken, encrypted, unreadable)' },
  429: { description: 'Too many conversions waiting (Retry-After says when to try again)' },
  504: { description: 'LibreOffice did not finish within CONVERSION_TIMEOUT_MS' },
};

export function conversionRoutes(deps: ConversionRoutesDeps): RouteDefinition[] {
  const { converter } = deps;
  const admit = (res: Response) => {
    try {
      converter.admit();
    } catch (err) {
      res.setHeader('Retry-After', '5');
      throw err;
    }
  };
  const inputOf = (file: UploadedFile) => ({
    path: file.path,
    name: file.originalName || 'upload',
  });

  return [
    defineRoute({
      method: 'post',
      path: '/convert',
      summary: 'Convert an office file or an image to PDF',
      description:
        'Office files (docx, doc, pptx, ppt, xlsx, xls, csv, odt, ods, odp, rtf) through LibreOffice ' +
        '(a .docx it cannot read falls back to its text); PNG and JPEG laid on a page; other images ' +
        '(bmp, gif, tiff, webp) through LibreOffice; a PDF comes back as it is.',
      tags: ['conversion'],
      before: deps.uploadOne,
      request: {
        body: z.object({ file: uploadedFile('a file is required in the multipart field `file`') }),
        bodyContentType: 'multipart/form-data',
      },
      responses: { 200: PDF_ANSWER, ...errors },
      handler: async ({ body }, req, res) => {
        admit(res);
        const input = inputOf(body.file);
        const pdf = await converter.toPdf(input, workspaceOf(res), req.log, clientGoneSignal(res));
        await sendPdf(res, pdf, `${stemOf(input.name)}.pdf`);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/merge',
      summary: 'Join files into one PDF, in the order sent',
      description: 'Each file that is not a PDF is converted first, as `/convert` does.',
      tags: ['conversion'],
      before: deps.uploadMany,
      request: {
        body: z.object({
          files: z
            .array(uploadedFile('a file is required'))
            .min(1, 'send at least one file in the field `files`')
            .max(deps.maxMergeFiles),
        }),
        bodyContentType: 'multipart/form-data',
      },
      responses: { 200: PDF_ANSWER, ...errors },
      handler: async ({ body }, req, res) => {
        admit(res);
        const merged = await converter.merge(
          body.files.map(inputOf),
          workspaceOf(res),
          req.log,
          clientGoneSignal(res),
        );
        res.setHeader('X-Page-Count', String(merged.pages));
        await sendPdf(res, merged.path, 'merged.pdf');
      },
    }),
  ];
}

function stemOf(name: string): string {
  const file = basename(name.replace(/\\/g, '/'));
  return (file.slice(0, file.length - extname(file).length) || 'document').replace(
    /[^\w.-]+/g,
    '_',
  );
}

function sendPdf(res: Response, path: string, filename: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.sendFile(
      path,
      {
        headers: {
          'Content-Type': 'application/pdf',
          'Content-Disposition': `attachment; filename="${filename}"`,
        },
      },
      (err) => (err ? reject(err) : resolve()),
    );
  });
}
