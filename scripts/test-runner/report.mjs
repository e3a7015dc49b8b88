// The closing report of a test run: the totals of every file's own summary (the lines `ℹ pass N` and so
// on that Node's spec reporter ends each file with), the files that failed, and the ten slowest files.
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/** The counts a file's spec output ends with (zeros when it printed none). */
export function totalsOf(output) {
  const totals = Object.fromEntries(COUNTS.map((name) => [name, 0]));
  for (const match of output.matchAll(/^ℹ (\w+) (\d+)$/gm)) {
    if (match[1] in totals) totals[match[1]] = Number(match[2]);
  }
  return totals;
}

/** Prints the report; true when anything failed. */
export function report(results, ms, concurrency) {
  const sum = Object.fromEntries(COUNTS.map((name) => [name, 0]));
  for (const r of results) {
    const totals = totalsOf(r.output);
    for (const name of COUNTS) sum[name] += totals[name];
  }
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10);
  const busy = results.reduce((total, r) => total + r.ms, 0);
  const cpu = results.some((r) => r.cpuMs === null) ? null : results.reduce((total, r) => total + r.cpuMs, 0);
  const cpuNote = cpu === null ? '' : `, ${(cpu / 1000).toFixed(0)} s of CPU in all`;
  console.log(`slowest test files (of ${results.length}, ${concurrency} at a time, ${(busy / ms).toFixed(1)} running on average${cpuNote}):`);
  for (const r of slowest) {
    const own = r.cpuMs === null ? '' : ` (${(r.cpuMs / 1000).toFixed(1)} s of CPU)`;
    console.log(`  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}${own}`);
  }
  const failedFiles = results.filter((r) => !r.ok);
  if (failedFiles.length) {
    console.log(`\nfiles that failed (${failedFiles.length}):`);
    for (const r of failedFiles) console.log(`  ${r.file}`);
  }
  const what = results.some((r) => r.file.startsWith('check: ')) ? 'test files and checks' : 'test files';
  console.log(`\n${what}: ${results.length - failedFiles.length} of ${results.length} passed in ${(ms / 1000).toFixed(1)} s\n`);
  for (const name of COUNTS) console.log(`ℹ ${name} ${sum[name]}`);
  console.log(`ℹ duration_ms ${ms}`);
  // A file that failed without a failing test (it crashed before or after its tests) counts as one.
  const silentFailures = failedFiles.filter((r) => {
    const totals = totalsOf(r.output);
    return totals.fail + totals.cancelled === 0;
  }).length;
  const failures = sum.fail + sum.cancelled + silentFailures;
  console.log(`tests: ${sum.pass} passed, ${failures} failed, ${sum.skipped + sum.todo} skipped`);
  return failures > 0;
}
