/** @forensics/langchain — LangChain.js integration of the RAG forensics service (@langchain/core is a peer dependency). */
export { FORENSICS_ID, ForensicsRetriever, type ForensicsRetrieverInput } from './forensics-retriever';
export { ForensicsAnswerLogger, type ForensicsAnswerLoggerInput, type LoggedRagAnswer } from './answer-logger.callback';
