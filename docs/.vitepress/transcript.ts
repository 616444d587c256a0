// A captured run (docs/outputs/*.txt), rendered so a reader can tell who is speaking:
//
//   <<< @/outputs/11.txt{transcript}
//
// Each line gets a class: the command typed, the harness's own lines (settings, results, token
// counts), the model's words, the tool calls, a scripted event (a "teammate" editing a file), a
// file printed by `cat`, and diffs, coloured as diffs. Long lines wrap as in a terminal.
const HARNESS = new RegExp(
  [
    String.raw`^\(Scripted demo`,
    "^── ",
    String.raw`^[a-z][\w ./'-]*: `,
    String.raw`^run \d`,
    "^changed in this run",
    "^Success\\.",
    "^Failed",
    String.raw`^[AMD] \S+$`,
    String.raw`^\(chapter \d+ exited`,
    "^the system prompt the model received",
  ].join("|"),
);

export type LineKind =
  | "command"
  | "harness"
  | "model"
  | "tool"
  | "event"
  | "file"
  | "diff-header"
  | "diff-hunk"
  | "diff-add"
  | "diff-remove"
  | "diff-context";

function isDiffBody(line: string): boolean {
  return /^[ +-]/.test(line) || line.startsWith("@@") || line === "";
}

/** The kind of every line of a captured run. */
export function classifyTranscript(lines: readonly string[]): LineKind[] {
  const kinds: LineKind[] = [];
  let printing = false; // after `$ cat …` or `--print-prompt`: the lines are a file's text
  let inDiff = false;
  let demoHeader = false; // the demo runner's title and story, up to the workspace line
  let shownFile = false; // a file the demo runner prints after the run
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? "";
    if (line.startsWith("$ ")) {
      printing = /^\$ cat\b/.test(line) || line.includes("--print-prompt");
      inDiff = false;
      kinds.push("command");
      continue;
    }
    if (line.startsWith("── scripted demo")) demoHeader = true;
    if (demoHeader) {
      kinds.push("harness");
      if (line.startsWith("workspace:") || line === "") demoHeader = false;
      continue;
    }
    if (/^── .* after the run ──$/.test(line)) {
      shownFile = true;
      kinds.push("harness");
      continue;
    }
    if (shownFile && /^(look for:|the scratch workspace|── |the system prompt)/.test(line)) {
      shownFile = false;
    }
    if (shownFile) {
      kinds.push("file");
      continue;
    }
    const startsDiff =
      (line.startsWith("--- a/") && next.startsWith("+++ b/")) ||
      (/^\*\*\* \S+$/.test(line) && next.startsWith("@@")) ||
      line.startsWith("@@ -");
    if (startsDiff) inDiff = true;
    if (inDiff && (startsDiff || isDiffBody(line) || line.startsWith("+++ "))) {
      if (/^(--- a\/|\+\+\+ b\/|\*\*\* )/.test(line)) kinds.push("diff-header");
      else if (line.startsWith("@@")) kinds.push("diff-hunk");
      else if (line.startsWith("+")) kinds.push("diff-add");
      else if (line.startsWith("-")) kinds.push("diff-remove");
      else kinds.push("diff-context");
      continue;
    }
    inDiff = false;
    if (printing) kinds.push("file");
    else if (line.startsWith("[scripted]")) kinds.push("event");
    else if (line.startsWith("→ ")) kinds.push("tool");
    else if (HARNESS.test(line)) kinds.push("harness");
    else kinds.push(line.trim() === "" ? "harness" : "model");
  }
  return kinds;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const LEGEND: Array<[LineKind, string]> = [
  ["command", "you type"],
  ["harness", "the harness"],
  ["model", "the model"],
  ["tool", "a tool call"],
  ["event", "a scripted event"],
  ["diff-add", "diff"],
];

/**
 * Under a run of chapter 17 or later that reports token counts: why a reader's run counts
 * differently. From chapter 17 the system prompt holds the workspace's path (the capture ran in a
 * scratch folder, shown as the reader's clone), the date and the git state, so the same run
 * elsewhere counts a few tokens more or fewer per request (chapter 18's break-it run: 27,515
 * captured, 27,613 on a reader's machine). The counts shown are the capture's own: rewriting
 * them would show numbers no run printed.
 */
export const TOKEN_NOTE =
  "Token counts are this capture's. From chapter 17 on, every request's system prompt holds the " +
  "workspace's path, the date and the git state, so the same run on your machine counts a few " +
  "tokens more or fewer per request.";

const REPORTS_TOKENS = /^(tokens: \d+ in|context: .*\btokens\b)/m;
const PROMPT_WITH_PATH_FROM = 17;

function needsTokenNote(text: string): boolean {
  const chapter = Number(/^\$ .*?pnpm chapter (\d+)/.exec(text)?.[1] ?? 0);
  return chapter >= PROMPT_WITH_PATH_FROM && REPORTS_TOKENS.test(text);
}

/** The HTML of a captured run: a legend of the kinds it has, then one span per line. */
export function renderTranscript(text: string): string {
  const lines = text.replace(/\n$/, "").split("\n");
  const kinds = classifyTranscript(lines);
  const present = new Set(kinds);
  const legend = LEGEND.filter(([kind]) => present.has(kind))
    .map(([kind, label]) => `<span class="t-${kind}">${label}</span>`)
    .join("");
  const body = lines
    .map((line, i) => `<span class="t-line t-${kinds[i]}">${escapeHtml(line) || " "}</span>`)
    .join("\n");
  return (
    `<div class="transcript-run"><div class="transcript-legend">${legend}</div>` +
    `<pre class="transcript-lines"><code>${body}</code></pre>` +
    (needsTokenNote(text) ? `<p class="transcript-note">${TOKEN_NOTE}</p>` : "") +
    `</div>\n`
  );
}
