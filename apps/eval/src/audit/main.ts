import 'reflect-metadata';
import { parseEvalAuditArgs, runEvalAudit } from './eval-audit';

runEvalAudit(parseEvalAuditArgs(process.argv.slice(2)))
  .then(({ line, out }) => { process.stderr.write(`report: ${out}/report.md\n`); console.log(JSON.stringify(line)); })
  .catch((e) => { console.error(e instanceof Error ? e.message : String(e)); process.exit(/not found|usage|option|argument|must/.test(String(e)) ? 2 : 1); });
