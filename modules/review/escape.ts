/**
 * What a plan says, put in the review comment as text only. A resource address, a type, an action
 * or a name read from `tofu show -json` is whatever the plan holds (module keys and `for_each`
 * keys are strings the author chose): written raw it could open a heading, a link, raw HTML or a
 * mention of a team. Each is shown as an inline code span (GitHub renders no Markdown, HTML or
 * mentions inside one), every control, format and line-separator character spelled out (`\n`,
 * `\u{200d}`), so a newline cannot end the line and an invisible character is seen.
 */

/** Characters that break a line or hide: controls (C0, C1), format characters (zero-width joiner…), line and paragraph separators. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The text with every hidden character spelled out: one line, nothing invisible. */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => NAMED[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/**
 * `text` as an inline code span: literal wherever it is put, a table cell too (`|` is escaped, as
 * GitHub's tables need even inside code). The fence is one backtick longer than the longest run in
 * the text; a space pads it when the text starts or ends with a backtick or a space.
 */
export function code(text: string): string {
  const shown = visible(String(text)).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = shown === '' || /^[` ]|[` ]$/.test(shown) ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}
