/** @forensics/llamaindex — LlamaIndex.TS integration of the RAG forensics service (@llamaindex/core is a peer dependency). */
export { ForensicsNodePostprocessor, nodeText, type ForensicsNodePostprocessorInput } from './forensics-node-postprocessor';
export { ForensicsAnswerLogger, textOfContent, type ForensicsAnswerLoggerInput, type LoggedLlamaAnswer } from './answer-logger';
