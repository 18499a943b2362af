import { readdirSync, readFileSync } from 'node:fs';

/** Child pids of every process, from /proc (Linux only). */
function childrenOf() {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name in field 2 may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** The browser's pid and those of every process under it, as /proc shows them now. */
export function processTree(browserPid) {
  const children = childrenOf();
  const tree = [];
  for (const pending = [browserPid]; pending.length; ) {
    const pid = pending.pop();
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The pids of the browser's renderer processes (a page's workers live in its renderer). */
export function rendererPids(browserPid) {
  return processTree(browserPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer');
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/** The proportional set size (PSS) of these processes, in bytes. */
export function pssOf(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // Gone, or not ours to read.
    }
  }
  return total;
}

/**
 * Proportional set size (PSS) of the browser's renderer processes, in bytes. A page's
 * dedicated workers, and the wasm memory of each Pyodide, live in its renderer process; the
 * browser, GPU and network processes are left out so their fixed cost does not dilute a ratio.
 */
export function rendererMemory(browserPid) {
  return pssOf(rendererPids(browserPid));
}

/**
 * CPU seconds used so far by the browser and every process under it (user + system, from
 * /proc/<pid>/stat, in clock ticks of 1/100 s). A process that ended in between is not counted.
 */
export function browserCpuSeconds(browserPid) {
  let ticks = 0;
  for (const pid of processTree(browserPid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 (utime, stime), counted from field 3 at index 0.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return ticks / 100;
}
