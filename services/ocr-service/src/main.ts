import '@pelita/kit/instrument'; // first: tracing patches http and express as they load
import { runService } from '@pelita/kit';
import { createOcrApiService } from './api/service';
import { settingsSchema } from './config';

runService({ name: 'ocr-service', settings: settingsSchema, create: createOcrApiService });
