// Resident memory of a process and of every process below it, read from /proc: Linux only.
import { readdirSync, readFileSync } from 'node:fs';

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined; // the process ended while the list was read
  }
}

/** The root and all its descendants, found through each process's parent in /proc/<pid>/stat. */
export function processTree(root) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(entry);
    if (parent === undefined) continue;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(entry));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

function rssOf(pid) {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/** A process's private and shared resident bytes, from /proc/<pid>/smaps_rollup. */
function residentOf(pid) {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
    return { private: kb('Private_Clean') + kb('Private_Dirty'), shared: kb('Shared_Clean') + kb('Shared_Dirty') };
  } catch {
    return { private: 0, shared: 0 };
  }
}

/**
 * Bytes the tree holds with shared pages counted once: every process's private pages, plus the largest
 * shared set of any one of them. The shared pages are the same node binary and libraries in each
 * process (about 40 MB), which VmRSS counts again for every process; the operating system holds them once.
 */
export function treeResident(root) {
  const each = processTree(root).map(residentOf);
  return each.reduce((sum, r) => sum + r.private, 0) + Math.max(0, ...each.map((r) => r.shared));
}

/** A process's script (`queryProcess.js`), else its command name. */
function nameOf(pid) {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const script = argv.find((arg) => /\.m?js$/.test(arg));
    return script ? script.slice(script.lastIndexOf('/') + 1) : readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return 'ended';
  }
}

/** Bytes: the sum of VmRSS over the tree. */
export function treeRss(root) {
  return processTree(root).reduce((sum, pid) => sum + rssOf(pid), 0);
}

/** The processes of the tree by name: `sluice.mjs, 2 × queryProcess.js`. */
export function treeNames(root) {
  const counts = new Map();
  for (const pid of processTree(root)) counts.set(nameOf(pid), (counts.get(nameOf(pid)) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n === 1 ? name : `${n} × ${name}`)).join(', ');
}

/** The highest tree RSS seen while `work` runs, sampled every `everyMs`. */
export async function peakTreeRss(root, everyMs, work) {
  let peak = treeRss(root);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss(root));
  }, everyMs);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, treeRss(root));
}
