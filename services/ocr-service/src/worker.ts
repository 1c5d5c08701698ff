/** The OCR worker's process (the operator's ocr-worker StatefulSet runs `node dist/worker.js`). */
import '@pelita/kit/instrument';
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createWorkerService } from './worker/service';

runService({ name: 'ocr-worker', settings: settingsSchema, create: createWorkerService });
