/** A one-line progress bar on stderr (plain lines when stderr is not a terminal). */
export function progressBar(label: string) {
  const tty = process.stderr.isTTY;
  let lastPct = -1;
  return {
    update(done: number, total: number, extra = '') {
      const pct = total ? Math.floor((done / total) * 100) : 100;
      if (!tty && pct - lastPct < 10 && done !== total) return;
      lastPct = pct;
      const width = 28;
      const fill = Math.round((pct / 100) * width);
      const line = `${label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${total} ${pct}% ${extra}`;
      if (tty) process.stderr.write(`\r${line}`);
      else process.stderr.write(`${line}\n`);
    },
    done() { if (tty) process.stderr.write('\n'); },
  };
}
