export * from './answer-query.use-case';
// Answer logging for external RAGs and feedback by token live beside it (one export line in the core index).
export * from '../log-answer/log-answer.use-case';
export * from '../log-answer/answer-feedback.use-case';
