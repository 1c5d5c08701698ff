/**
 * Imports inside src/ run one way: each folder (or top-level file) imports only from those in a
 * lower layer, and no file is part of an import cycle.
 */
import { resolve } from 'node:path';
import { expectLayers } from '@pelita/kit/testing';

// Lowest first. Within one layer, modules do not import each other.
const LAYERS: string[][] = [
  ['config', 'chunker', 'entities', 'summarizer-metrics'],
  ['token-estimate', 'answer-shapes', 'output-files', 'prompts', 'llm-client', 'upload'],
  ['answer-budget'],
  ['model-probe', 'model-tasks', 'chunk-calls'],
  ['entity-extraction'],
  ['summary-pipeline'],
  ['routes'],
  ['app'],
  ['service'],
  ['main', 'index'],
];

it('imports in src/ point down the layers, never in a cycle', () => {
  expectLayers(resolve(__dirname, '../../src'), LAYERS);
});
