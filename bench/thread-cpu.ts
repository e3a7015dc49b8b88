// CPU time of the main thread alone (process.cpuUsage counts every thread, V8's background compiler and
// GC threads included). Linux: from /proc/self/task/<pid>/stat, in clock ticks of 10 ms; NaN elsewhere.
import { readFileSync } from 'node:fs';

const TICK_MS = 10;

export function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at "state": utime and stime are the
    // 12th and 13th of them.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}
