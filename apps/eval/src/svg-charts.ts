/** Minimal SVG bar charts for report.md (no dependency; plain strings). */
export interface Bar { name: string; value: number | null; color: string; note?: string }
export interface BarGroup { label: string; bars: Bar[] }

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (v: number) => (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(3));

/** Grouped vertical bars on a 0..max axis; a null value is drawn as "n/a". Bars with a note get a dashed outline. */
export function groupedBarChart(opts: { title: string; groups: BarGroup[]; max?: number; yLabel?: string; width?: number; height?: number }): string {
  const width = opts.width ?? 640;
  const height = opts.height ?? 300;
  const m = { top: 36, right: 16, bottom: 64, left: 48 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const values = opts.groups.flatMap((g) => g.bars.map((b) => b.value ?? 0));
  const max = opts.max ?? Math.max(1e-9, ...values) * 1.1;
  const y = (v: number) => m.top + plotH - (Math.min(v, max) / max) * plotH;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${esc(opts.title)}</text>`);
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    out.push(`<text x="${m.left - 4}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`);
  }
  if (opts.yLabel) out.push(`<text transform="translate(12 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${esc(opts.yLabel)}</text>`);
  const gw = plotW / Math.max(1, opts.groups.length);
  opts.groups.forEach((g, gi) => {
    const n = Math.max(1, g.bars.length);
    const bw = Math.max(1, (gw * 0.8) / n);
    g.bars.forEach((b, bi) => {
      const x = m.left + gi * gw + gw * 0.1 + bi * bw;
      if (b.value === null) {
        out.push(`<text x="${x + bw / 2}" y="${y(0) - 4}" text-anchor="middle" fill="#999">n/a</text>`);
        return;
      }
      const top = y(b.value);
      const dash = b.note ? ' stroke="#333" stroke-dasharray="3,2" fill-opacity="0.45"' : '';
      out.push(`<rect x="${x.toFixed(2)}" y="${top.toFixed(2)}" width="${Math.max(0.5, bw - 1).toFixed(2)}" height="${(y(0) - top).toFixed(2)}" fill="${b.color}"${dash}><title>${esc(`${g.label} — ${b.name}${b.note ? ` (${b.note})` : ''}: ${b.value.toFixed(4)}`)}</title></rect>`);
      if (n <= 6 && opts.groups.length <= 12) out.push(`<text x="${x + bw / 2}" y="${top - 3}" text-anchor="middle" font-size="9">${fmt(b.value)}</text>`);
    });
    if (opts.groups.length <= 12) out.push(`<text x="${m.left + gi * gw + gw / 2}" y="${m.top + plotH + 16}" text-anchor="middle">${esc(g.label)}</text>`);
  });
  out.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(0)}" y2="${y(0)}" stroke="#333"/>`);
  const legend = new Map<string, Bar>();
  for (const g of opts.groups) for (const b of g.bars) if (!legend.has(b.name)) legend.set(b.name, b);
  let lx = m.left;
  for (const b of legend.values()) {
    const label = `${b.name}${b.note ? ` (${b.note})` : ''}`;
    out.push(`<rect x="${lx}" y="${height - 20}" width="10" height="10" fill="${b.color}"${b.note ? ' fill-opacity="0.45" stroke="#333" stroke-dasharray="3,2"' : ''}/>`);
    out.push(`<text x="${lx + 14}" y="${height - 11}">${esc(label)}</text>`);
    lx += 24 + label.length * 6;
  }
  out.push('</svg>');
  return out.join('\n');
}
