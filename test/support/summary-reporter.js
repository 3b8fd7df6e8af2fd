// Prints one plain closing line that CI systems can read: "jest: N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + (results.numRuntimeErrorTestSuites > 0 ? results.numRuntimeErrorTestSuites : 0);
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
