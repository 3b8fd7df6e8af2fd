import type { Embedder } from '@forensics/core';
import { OpenAiEmbedder, type OpenAiEmbedderConfig } from '../openai/openai-embedder.adapter';
import { OnnxEmbedder } from './onnx-embedder.adapter';
import { UseLiteEmbedder } from './use-lite-embedder.adapter';

export type EmbedderKind = 'use-lite' | 'minilm' | 'onnx' | 'openai';

/** The id collections record for all-MiniLM-L6-v2 (int8 ONNX from `npm run models`), whatever folder it is read from. */
export const MINILM_ID = 'all-MiniLM-L6-v2';

export interface EmbedderFactoryConfig {
  kind: EmbedderKind;
  /** kind 'onnx': folder with model.onnx + tokenizer.json (a HuggingFace sentence-transformers export). */
  onnxModelDir?: string;
  /** kind 'onnx': onnxruntime intra-op threads (default 2). */
  onnxThreads?: number;
  /** kind 'onnx': max tokens per text (default 256). */
  maxLength?: number;
  /** kinds 'use-lite' / 'onnx' / 'minilm': texts per model call (default 32). */
  batchSize?: number;
  /** kinds 'onnx' / 'minilm': rows per onnxruntime session run (default: the whole call; 'minilm' 1). */
  rowsPerRun?: number;
  /** kind 'openai': endpoint, key, model (and optional expected dimension). */
  openai?: OpenAiEmbedderConfig;
}

/** Builds the configured embedder (not yet initialised: call `init()`). */
export function createEmbedder(config: EmbedderFactoryConfig): Embedder {
  switch (config.kind) {
    case 'use-lite':
      return new UseLiteEmbedder({ batchSize: config.batchSize });
    case 'minilm':
      if (!config.onnxModelDir) throw new Error("createEmbedder: kind 'minilm' needs onnxModelDir (MODELS_DIR/all-MiniLM-L6-v2)");
      // One text per session run: the graph `npm run models` builds (scripts/build-bert-onnx.py) quantises each
      // MatMul's input with one scale per run, so a text batched with others (and their padding) would get another
      // vector than alone (cosine 0.98 measured). Alone it is no slower on 2 cores: no padding (decision 0430).
      return new OnnxEmbedder({ modelDir: config.onnxModelDir, id: MINILM_ID, intraOpThreads: config.onnxThreads, batchSize: config.batchSize, rowsPerRun: config.rowsPerRun ?? 1, maxLength: config.maxLength ?? 256 });
    case 'onnx':
      if (!config.onnxModelDir) throw new Error("createEmbedder: kind 'onnx' needs onnxModelDir (a folder with model.onnx and tokenizer.json)");
      return new OnnxEmbedder({ modelDir: config.onnxModelDir, intraOpThreads: config.onnxThreads, batchSize: config.batchSize, rowsPerRun: config.rowsPerRun, maxLength: config.maxLength });
    case 'openai':
      if (!config.openai) throw new Error("createEmbedder: kind 'openai' needs openai { baseURL, apiKey, model }");
      return new OpenAiEmbedder(config.openai);
    default: {
      const kind: never = config.kind;
      throw new Error(`createEmbedder: unknown embedder kind ${String(kind)}`);
    }
  }
}
