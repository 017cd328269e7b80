// Issue #18 (cold23): loaded with `node --import ./bench/scan/thread-cpu.mjs bin/hldp.js scan …`, it prints at exit
// (stderr, one line starting HOOK) the main thread's CPU, the process's CPU, its peak RSS, its wall time, and every
// other thread's CPU of at least 0.3 s (the parse thread, V8's collector helpers), each thread read every 100 ms from
// /proc/self/task (a thread that ended keeps its last reading). Linux only.
import { readFileSync, readdirSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  const seen = new Map();
  const poll = () => {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        seen.set(tid, { comm, cpu: (Number(f[11]) + Number(f[12])) / 100 });
      } catch {}
    }
  };
  setInterval(poll, 100).unref();
  process.on('exit', () => {
    poll();
    const main = seen.get(String(process.pid)).cpu;
    const ru = process.resourceUsage();
    const cpu = (ru.userCPUTime + ru.systemCPUTime) / 1e6;
    const others = [...seen].filter(([tid, t]) => tid !== String(process.pid) && t.cpu >= 0.3).map(([tid, t]) => `${t.comm}:${t.cpu.toFixed(2)}`).join(' ');
    process.stderr.write(`HOOK main=${main.toFixed(2)} cpu=${cpu.toFixed(2)} rss=${(ru.maxRSS / 1024).toFixed(1)}MiB wall=${(performance.now() / 1000).toFixed(2)} threads: ${others}\n`);
  });
}
