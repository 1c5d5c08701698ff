import '@pelita/kit/instrument'; // first: tracing patches http and express as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createOcrEngineService } from './service';

runService({ name: 'ocr-engine', settings: settingsSchema, create: createOcrEngineService });
