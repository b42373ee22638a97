import { escapeXml } from './svg-bar-chart.js';

export interface LineSeries {
  label: string;
  points: readonly { x: number; y: number }[];
  dashed?: boolean | undefined;
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly LineSeries[];
  /** X values to label on the axis (default: every x of the first series). */
  xTicks?: readonly number[] | undefined;
  formatX?: ((value: number) => string) | undefined;
  formatY?: ((value: number) => string) | undefined;
}

const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1'];
const width = 760;
const height = 340;
const left = 70;
const right = 170;
const top = 44;
const bottom = 46;

/** A line chart (one line per series, y from 0) as standalone SVG text, no dependency. */
export function renderLineChart(options: LineChartOptions): string {
  const points = options.series.flatMap((s) => s.points);
  const xs = points.map((p) => p.x);
  const minX = Math.min(...xs);
  const maxX = Math.max(minX + 1e-9, ...xs);
  const maxY = Math.max(1e-9, ...points.map((p) => p.y)) * 1.1;
  const formatX = options.formatX ?? String;
  const formatY = options.formatY ?? ((v: number) => v.toPrecision(3));
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const px = (x: number) => left + ((x - minX) / (maxX - minX)) * plotWidth;
  const py = (y: number) => top + plotHeight - (y / maxY) * plotHeight;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
    `<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#999"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="#999"/>`,
    `<text x="${left + plotWidth / 2}" y="${height - 8}" text-anchor="middle" fill="#555">${escapeXml(options.xLabel)}</text>`,
    `<text x="14" y="${top + plotHeight / 2}" text-anchor="middle" fill="#555" transform="rotate(-90 14 ${top + plotHeight / 2})">${escapeXml(options.yLabel)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = (maxY * i) / 4;
    parts.push(
      `<line x1="${left}" y1="${py(y)}" x2="${left + plotWidth}" y2="${py(y)}" stroke="#eee"/>`,
      `<text x="${left - 6}" y="${py(y) + 4}" text-anchor="end" fill="#555">${escapeXml(formatY(y))}</text>`,
    );
  }
  for (const x of options.xTicks ?? options.series[0]?.points.map((p) => p.x) ?? []) {
    parts.push(
      `<text x="${px(x)}" y="${top + plotHeight + 16}" text-anchor="middle" fill="#555">${escapeXml(formatX(x))}</text>`,
    );
  }
  options.series.forEach((series, index) => {
    const color = palette[index % palette.length];
    const path = series.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    const dash = series.dashed ? ' stroke-dasharray="5 4"' : '';
    parts.push(
      `<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`,
      `<line x1="${width - right + 14}" y1="${top + 10 + index * 20}" x2="${width - right + 34}" y2="${top + 10 + index * 20}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${width - right + 40}" y="${top + 14 + index * 20}">${escapeXml(series.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
