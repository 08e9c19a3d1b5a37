// The settings table in words: `freeway --help` prints it as text, docs/configuration.md
// holds it as Markdown (`npm run docs:config` writes it there).
import { eachSetting, groupTitles, perProviderSettings, settings } from './settings.ts';

/** One setting as the help and the docs show it. */
export interface SettingRow {
  readonly env: string;
  readonly shownDefault: string;
  readonly accepts: string;
  readonly doc: string;
  /** Where its value is in Config (`limits.body`). */
  readonly path: string;
}

export interface SettingGroup {
  readonly title: string;
  readonly rows: readonly SettingRow[];
}

/** The table's groups in order, and last the settings named after each provider. */
export function settingGroups(): SettingGroup[] {
  const groups = new Map<string, SettingRow[]>();
  for (const name of Object.keys(settings)) groups.set(name, []);
  for (const { path, setting } of eachSetting()) {
    groups.get(path[0] ?? '')?.push({
      env: setting.env,
      shownDefault: setting.shownDefault ?? (setting.default === undefined ? 'unset' : `\`${setting.default}\``),
      accepts: setting.accepts,
      doc: setting.doc,
      path: path.join('.'),
    });
  }
  const titled = [...groups].map(([name, rows]) => ({ title: groupTitles[name as keyof typeof groupTitles], rows }));
  return [...titled, { title: 'Providers', rows: perProviderSettings }];
}

/** Markdown as plain text: code spans and links keep their words only. */
function plain(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replaceAll('`', '');
}

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines.join('\n');
}

/** Every setting for `freeway --help`: its name and default, then what it does, wrapped to 80 columns. */
export function helpText(): string {
  const parts: string[] = [];
  for (const group of settingGroups()) {
    parts.push(`${group.title}:`);
    for (const row of group.rows) {
      parts.push(`  ${row.env} (default: ${plain(row.shownDefault)})`, wrap(`${plain(row.doc)}. Accepts: ${plain(row.accepts)}.`, 80, '      '));
    }
    parts.push('');
  }
  return parts.join('\n');
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** Every setting as Markdown tables, one per group, for docs/configuration.md. */
export function markdownTable(): string {
  const parts: string[] = [];
  for (const group of settingGroups()) {
    parts.push(`### ${group.title}`, '', '| Variable | Default | Accepts | Meaning | In `Config` |', '|---|---|---|---|---|');
    for (const row of group.rows) {
      parts.push(`| \`${row.env}\` | ${cell(row.shownDefault)} | ${cell(row.accepts)} | ${cell(row.doc)} | \`${row.path}\` |`);
    }
    parts.push('');
  }
  return parts.join('\n');
}

const tableStart = '<!-- settings table: written by `npm run docs:config` from server/config/settings.ts; do not edit by hand -->';
const tableEnd = '<!-- end of settings table -->';

/** docs/configuration.md with its settings table made afresh from the table in settings.ts. */
export function withSettingsTable(doc: string): string {
  const start = doc.indexOf(tableStart);
  const end = doc.indexOf(tableEnd);
  if (start === -1 || end < start) throw new Error(`docs/configuration.md must hold the lines ${tableStart} and ${tableEnd}`);
  return `${doc.slice(0, start + tableStart.length)}\n\n${markdownTable()}\n${doc.slice(end)}`;
}
