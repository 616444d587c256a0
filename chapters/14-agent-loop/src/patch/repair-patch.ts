/**
 * The envelope a model puts around a patch: CRLF line breaks, a Markdown code fence, a
 * shell heredoc. None of it changes what the patch means, so it is taken off here, before
 * parsing, and each repair is reported so the model can learn the plain form.
 */
export interface UnwrappedPatch {
  lines: string[];
  /** 1-based line number, in the text as sent, of `lines[0]`: error messages quote it. */
  firstLineNumber: number;
  repairs: string[];
}

const FENCE_OPEN = /^```[\w-]*$/;
const FENCE_CLOSE = /^```$/;
// `<<EOF`, `<<'EOF'`, `<<"EOF"`, `apply_patch <<'PATCH'`, `cat <<-EOF | apply_patch`...
const HEREDOC_OPEN = /<<-?\s*(['"]?)([A-Za-z_]\w*)\1/;

export function unwrapPatch(text: string): UnwrappedPatch {
  const repairs: string[] = [];
  if (text.includes("\r\n")) {
    repairs.push("The patch used CRLF line breaks; they were read as LF.");
    text = text.replaceAll("\r\n", "\n");
  }
  let lines = text.split("\n");
  let first = 0;
  let last = lines.length - 1;
  const skipBlank = () => {
    while (first <= last && lines[first]?.trim() === "") first++;
    while (last >= first && lines[last]?.trim() === "") last--;
  };
  skipBlank();
  // Two rounds: a heredoc inside a code fence is common in chat answers.
  for (let round = 0; round < 2 && last > first; round++) {
    const opening = lines[first]?.trim() ?? "";
    const closing = lines[last]?.trim() ?? "";
    const heredoc = HEREDOC_OPEN.exec(opening);
    if (FENCE_OPEN.test(opening) && FENCE_CLOSE.test(closing)) {
      repairs.push(`The patch was wrapped in a '${opening}' code fence; the fence was removed.`);
    } else if (heredoc && closing === heredoc[2]) {
      repairs.push(`The patch was wrapped in a heredoc ('${opening}'); the wrapper was removed.`);
    } else {
      break;
    }
    first++;
    last--;
    skipBlank();
  }
  lines = lines.slice(first, last + 1);
  return { lines, firstLineNumber: first + 1, repairs };
}
