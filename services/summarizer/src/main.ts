import '@pelita/kit/instrument'; // first: tracing patches http, express and fetch as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createSummarizerService } from './service';

runService({ name: 'summarizer', settings: settingsSchema, create: createSummarizerService });
