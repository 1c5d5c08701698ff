// Prints the totals of the whole jest run on a line of its own, `N passed, N failed`, the
// form CI reads (jest's own summary is not). A suite that fails to load counts as one failure.
class TotalsReporter {
  onRunComplete(_contexts, results) {
    const failedToLoad = results.testResults.filter((r) => r.testExecError).length;
    const failed = results.numFailedTests + failedToLoad;
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${failed} failed`;
    process.stdout.write(`\n${skipped > 0 ? `${line}, ${skipped} skipped` : line}\n`);
  }
}

module.exports = TotalsReporter;
