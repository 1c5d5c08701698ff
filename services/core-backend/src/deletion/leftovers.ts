/**
 * What a deleted workspace, document or audio leaves outside PostgreSQL, worked out from its rows
 * while they are still there: the deletion job (`deletion-repository.ts`) keeps it and the worker
 * removes it (`remove-leftovers.ts`). Pure functions, so the rules are tested without servers.
 */
import { documentOriginalKey } from '../documents/originals';
import type { AudioRow, DocumentRow, Leftovers, OcrTaskLeftover } from './deletion-repository';

/**
 * Every OCR task a document has had — `{id}` first, `{id}-{n}` for the n-th re-processing — and
 * the next one, which a re-processing racing the deletion may have sent already (the ocr-service
 * does not know it otherwise, and then it counts as ended).
 */
export function ocrTasksOf(document: DocumentRow): OcrTaskLeftover[] {
  const current = document.attempt === 0 ? document.id : `${document.id}-${document.attempt}`;
  const stillWriting =
    document.state === 'queued' ||
    document.state === 'processing' ||
    (document.state === 'done' && document.summary_state === 'pending');
  const tasks: OcrTaskLeftover[] = [{ taskId: document.id, running: false }];
  for (let n = 1; n <= document.attempt; n++) {
    tasks.push({ taskId: `${document.id}-${n}`, running: false });
  }
  for (const task of tasks) task.running = task.taskId === current && stillWriting;
  tasks.push({ taskId: `${document.id}-${document.attempt + 1}`, running: true });
  return tasks;
}

export function documentLeftovers(document: DocumentRow): Leftovers {
  return {
    resources: [{ type: 'document', id: document.id }],
    ocrTasks: ocrTasksOf(document),
    // An upload being sent when it is deleted may have its original stored but not yet recorded.
    objects:
      document.original_key || document.source === 'upload'
        ? [document.original_key ?? documentOriginalKey(document.id)]
        : [],
  };
}

export function audioLeftovers(audio: AudioRow): Leftovers {
  return {
    resources: [{ type: 'audio', id: audio.id }],
    ocrTasks: [],
    objects: [audio.original_key],
  };
}

export function workspaceLeftovers(
  workspaceId: string,
  documents: DocumentRow[],
  audios: AudioRow[],
): Leftovers {
  const parts = [...documents.map(documentLeftovers), ...audios.map(audioLeftovers)];
  return {
    // One query by workspace finds every passage, even of a resource whose row went earlier.
    workspacePassages: workspaceId,
    resources: [],
    ocrTasks: parts.flatMap((part) => part.ocrTasks),
    objects: parts.flatMap((part) => part.objects),
  };
}

/** The pause before the next try after `attempts` failed ones: doubling, at most `maxMs`. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}
