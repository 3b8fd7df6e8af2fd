/**
 * Evaluation harness CLI: `npm run -s eval -- --data FILE.jsonl [...]` (see EVAL_USAGE).
 * Prints ONE JSON line on stdout; progress and the report path go to stderr.
 */
import { EvalDataError } from './eval-data';
import { EVAL_USAGE, runEvalCli, UsageError } from './eval-cli';

runEvalCli(process.argv.slice(2))
  .then((res) => {
    // --suite dev prints its table first, then the pooled line.
    if ('table' in res && typeof res.table === 'string') process.stdout.write(`${res.table}\n`);
    process.stdout.write(`${JSON.stringify(res.line)}\n`);
  })
  .catch((err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`eval: ${err.message}\n${EVAL_USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof EvalDataError) {
      process.stderr.write(`eval: ${err.message}\n`);
      process.exitCode = 3;
    } else {
      process.stderr.write(`eval: failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  });
