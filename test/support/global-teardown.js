module.exports = async function globalTeardown() {
  const child = globalThis.__forensicsTestServices;
  if (!child) return;
  await new Promise((resolve) => {
    const t = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 15_000);
    child.on('exit', () => { clearTimeout(t); resolve(); });
    child.stdin.end();
  });
};
