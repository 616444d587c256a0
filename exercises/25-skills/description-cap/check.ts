// Exercise "One long description": each skill's line in the prompt's "# Skills" section is cut to
// at most 60 tokens, at a word, ending with "…", so verbose skills no longer push the others out.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface SectionModule {
  formatSkills(skills: { name: string; description: string }[]): string | undefined;
}
interface TokenModule {
  countTextTokens(text: string): number;
}

const load = <T>(chapterDir: string, file: string) =>
  import(pathToFileURL(join(chapterDir, file)).href) as Promise<T>;

export default async function check(chapterDir: string): Promise<void> {
  const { formatSkills } = await load<SectionModule>(chapterDir, "src/skills/skills-section.ts");
  const { countTextTokens } = await load<TokenModule>(chapterDir, "src/context/token-counter.ts");

  // About 1,000 characters each, near the format's limit: a skill that says too much.
  const long = (n: number) =>
    `Use it when the task touches part ${n} of the checkout. ` +
    "It explains the history of the module, the decisions behind each rule, ".repeat(13);
  const skills = [
    ...[1, 2, 3, 4].map((n) => ({ name: `verbose-${n}`, description: long(n) })),
    { name: "run-checks", description: "How the checks run. Use it before you run them." },
  ];
  const section = formatSkills(skills) ?? "";
  const lines = section.split("\n").filter((line) => line.startsWith("- "));

  assert.deepEqual(
    lines.map((line) => line.slice(2, line.indexOf(":"))),
    skills.map((skill) => skill.name),
    `every skill should be listed once long lines are cut; the section reads:\n${section}`,
  );
  for (const line of lines.slice(0, 4)) {
    assert.ok(
      countTextTokens(line) <= 60,
      `a skill's line should cost at most 60 tokens, this one costs ${countTextTokens(line)}: ${line}`,
    );
    assert.ok(line.endsWith("…"), `a cut line should end with "…": ${line}`);
    assert.ok(
      line.startsWith("- verbose-") && line.includes(": Use it when the task touches part"),
      `the cut keeps the start of the description: ${line}`,
    );
    const skill = skills.find((s) => line.startsWith(`- ${s.name}:`))!;
    const full = `- ${skill.name}: ${skill.description}`;
    const kept = line.slice(0, -1).trimEnd();
    assert.ok(
      full.startsWith(kept) && full[kept.length] === " ",
      `cut between two words, not inside one: ${line}`,
    );
  }
  assert.equal(
    lines[4],
    "- run-checks: How the checks run. Use it before you run them.",
    "a short description is not cut",
  );
}
