export interface BarSeries {
  label: string;
  values: readonly number[];
}

export interface BarChartOptions {
  title: string;
  /** One row per category (a strategy, a call path). */
  categories: readonly string[];
  /** One bar per series in each row (a run size); a single series for a plain chart. */
  series: readonly BarSeries[];
  unit?: string | undefined;
  format?: ((value: number) => string) | undefined;
}

const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2'];
const labelWidth = 250;
const chartWidth = 460;
const barHeight = 14;
const gap = 10;

/** A horizontal grouped bar chart as standalone SVG text, no dependency. */
export function renderBarChart(options: BarChartOptions): string {
  const { categories, series } = options;
  const format = options.format ?? ((value: number) => String(value));
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values));
  const groupHeight = series.length * barHeight + gap;
  const top = 46;
  const legendHeight = series.length > 1 ? 24 : 0;
  const height = top + categories.length * groupHeight + legendHeight + 16;
  const width = labelWidth + chartWidth + 110;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  if (options.unit) {
    parts.push(
      `<text x="${width - 12}" y="24" text-anchor="end" fill="#555">${escapeXml(options.unit)}</text>`,
    );
  }
  categories.forEach((category, row) => {
    const y0 = top + row * groupHeight;
    const middle = y0 + (series.length * barHeight) / 2 + 4;
    parts.push(
      `<text x="${labelWidth - 8}" y="${middle}" text-anchor="end">${escapeXml(category)}</text>`,
    );
    series.forEach((s, index) => {
      const value = s.values[row] ?? 0;
      const w = Math.max(value > 0 ? 1 : 0, (value / max) * chartWidth);
      const y = y0 + index * barHeight;
      parts.push(
        `<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight - 2}" fill="${palette[index % palette.length]}"/>`,
        `<text x="${(labelWidth + w + 4).toFixed(1)}" y="${y + barHeight - 4}" fill="#333">${escapeXml(format(value))}</text>`,
      );
    });
  });
  parts.push(
    `<line x1="${labelWidth}" y1="${top - 4}" x2="${labelWidth}" y2="${top + categories.length * groupHeight - gap + 4}" stroke="#999"/>`,
  );
  if (series.length > 1) {
    const y = top + categories.length * groupHeight + 12;
    series.forEach((s, index) => {
      const x = labelWidth + index * 170;
      parts.push(
        `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${palette[index % palette.length]}"/>`,
        `<text x="${x + 18}" y="${y}">${escapeXml(s.label)}</text>`,
      );
    });
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
