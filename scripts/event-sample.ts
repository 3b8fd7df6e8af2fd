/**
 * Writes the fixed event sample of `--suite dev --sample` (issue 60 item 2): N events per attack family, drawn once
 * with the suite's seed from the development files (apps/eval/src/suite-files.ts `buildEventSample`), as record ids.
 *   npx tsx scripts/event-sample.ts [perFamily=40] [dataDir=../shared/data] > apps/eval/samples/dev-40.json
 */
import { resolve } from 'node:path';
import { buildEventSample, loadSuiteFiles } from '../apps/eval/src/suite-files';

const perFamily = Number(process.argv[2] ?? 40);
const { loaded, absent } = loadSuiteFiles(resolve(process.argv[3] ?? '../shared/data'));
if (absent.length) throw new Error(`development files missing: ${absent.join(', ')}: the sample must be drawn from all of them`);
process.stdout.write(`${JSON.stringify(buildEventSample(loaded, perFamily), null, 1)}\n`);
