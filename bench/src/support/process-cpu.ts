import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) the processes have used so far; processes that are gone count 0.
 * On a machine shared with other work this stays meaningful where latencies do not: it is what a
 * request costs, not how long it waited for a core.
 */
export function cpuSecondsOf(pids: readonly number[]) {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 12th, stime the 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended.
    }
  }
  return ticks / TICKS_PER_SECOND;
}
