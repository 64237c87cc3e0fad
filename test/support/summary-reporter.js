/**
 * Prints the plain closing line CI reads ("N passed, N failed, N skipped") after jest's own summary.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\n${results.numPassedTests} passed, ${results.numFailedTests + results.numRuntimeErrorTestSuites} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
