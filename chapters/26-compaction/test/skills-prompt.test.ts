import { describe, expect, it } from "vitest";
import { countTextTokens, countToolTokens } from "../src/context/token-counter.ts";
import { agentTools } from "../src/loop/agent-tools.ts";
import { printPrompt } from "../src/prompts/print-prompt.ts";
import { buildSystemPrompt } from "../src/prompts/system-prompt.ts";
import { discoverSkills } from "../src/skills/discover-skills.ts";
import { formatSkills, SKILLS_MAX_TOKENS } from "../src/skills/skills-section.ts";
import { toOpenAITool } from "../src/tools/define-tool.ts";
import { loadSkillTool } from "../src/tools/load-skill-tool.ts";
import { useSkillFolders, writeSkill } from "./skills-fixtures.ts";

const folders = useSkillFolders();
const fixed = { now: new Date(2025, 0, 15, 12, 0, 0), platform: "linux", git: async () => "" };
const never = async () => "no_terminal" as const;

describe("the skills in the system prompt", () => {
  it("lists each skill's name and description, and how to load one", async () => {
    const section = formatSkills([
      { name: "run-checks", description: "How the checks run.\nUse it before you run them." },
      { name: "release-notes", description: "The team's rule for release notes." },
    ]);
    expect(section).toBe(
      "# Skills\n\n" +
        "Skills are procedures written down for particular tasks. When your task matches a skill's " +
        "description, call `load_skill` with its name before you start, and follow it unless it " +
        "conflicts with the rules above. " +
        '`load_skill` with "name/file" loads a file beside the skill.\n\n' +
        "- run-checks: How the checks run. Use it before you run them.\n" +
        "- release-notes: The team's rule for release notes.",
    );
  });

  // Collections shaped like real ones: anthropics/skills has 15 skills with descriptions of a few
  // hundred characters, trailofbits/skills 78, named in two to four words.
  function collection(size: number, seed: number): { name: string; description: string }[] {
    const words = (
      "audit context secure contracts constant time analysis differential review entry " +
      "point property testing semgrep rule creator sharp edges static variant fuzzing harness " +
      "crypto protocol memory safety supply chain firmware kernel threat model defaults coverage"
    ).split(" ");
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = () => words[Math.floor(next() * words.length)]!;
    const names = new Set<string>();
    while (names.size < size)
      names.add(Array.from({ length: 2 + Math.floor(next() * 3) }, pick).join("-"));
    return [...names].sort().map((name) => ({
      name,
      description: `Use when ${Array.from({ length: 30 + Math.floor(next() * 50) }, pick).join(" ")}.`,
    }));
  }

  it.each([15, 78])(`names every one of %i skills within ${SKILLS_MAX_TOKENS} tokens`, (size) => {
    const skills = collection(size, size);
    const section = formatSkills(skills)!;
    expect(countTextTokens(section)).toBeLessThanOrEqual(SKILLS_MAX_TOKENS);
    for (const skill of skills) expect(section).toMatch(new RegExp(`[ ,]${skill.name}[:,\\n]`));
  });

  it("shortens every long description to the same length before it drops any", () => {
    const skills = Array.from({ length: 40 }, (_, n) => ({
      name: `skill-${n}`,
      description: `Use it when the task is about part ${n} of the shop's checkout, its receipts, refunds and the emails they send.`,
    }));
    const section = formatSkills(skills)!;
    expect(countTextTokens(section)).toBeLessThanOrEqual(SKILLS_MAX_TOKENS);
    const lines = section.split("\n").filter((line) => line.startsWith("- skill-"));
    expect(lines).toHaveLength(40);
    expect(lines.every((line) => line.endsWith("…"))).toBe(true);
    expect(section.split("\n").at(-1)).toBe(
      "(40 descriptions are shortened to keep this prompt short: `load_skill` shows a skill in full.)",
    );
  });

  it("keeps the names alone when shortened descriptions would say too little, and caps even those", () => {
    const skills = collection(78, 1);
    const names = formatSkills(skills, 700)!;
    expect(names.split("\n").at(-2)).toBe(`- ${skills.map((skill) => skill.name).join(", ")}`);
    expect(names.split("\n").at(-1)).toBe(
      "(Only the names, to keep this prompt short: `load_skill` shows a skill in full.)",
    );

    const capped = formatSkills(skills, 300)!;
    expect(countTextTokens(capped)).toBeLessThanOrEqual(300);
    expect(capped).toContain(`- ${skills[0]!.name}, `);
    expect(capped.split("\n").at(-1)).toMatch(
      /^\(Only the names, to keep this prompt short, and \d+ more are not named here: `load_skill` with a name it does not know answers with every name\.\)$/,
    );
  });

  it("names the skills of the workspace after AGENTS.md, at the end of the prompt", async () => {
    await writeSkill(folders.workspace, ".agents/skills", "run-checks");
    const { skills } = await discoverSkills(folders.workspace);
    const prompt = await buildSystemPrompt(folders.workspace, { ...fixed, skills });
    expect(prompt.endsWith("\n- run-checks: Use it for run-checks.\n")).toBe(true);
  });

  it("has no skills section, and the agent no load_skill, when there are no skills", async () => {
    const { skills } = await discoverSkills(folders.workspace, { home: folders.home });
    expect(skills).toEqual([]);
    const prompt = await buildSystemPrompt(folders.workspace, { ...fixed, skills });
    expect(prompt).toBe(await buildSystemPrompt(folders.workspace, fixed));
    expect(prompt).not.toContain("# Skills");
    expect(agentTools(never, undefined, skills).map((tool) => tool.name)).not.toContain(
      "load_skill",
    );
  });
});

describe("load_skill's cost", () => {
  it("is at most 45 tokens, sent with every request of a run that has skills", async () => {
    expect(countToolTokens([toOpenAITool(loadSkillTool([]))])).toBeLessThanOrEqual(45);

    await writeSkill(folders.workspace, ".agents/skills", "run-checks");
    const { skills } = await discoverSkills(folders.workspace);
    let printed = "";
    await printPrompt(
      folders.workspace,
      { ...fixed, skills, tools: agentTools(never, undefined, skills) },
      { write: (text: string) => (printed += text) },
    );
    expect(printed).toMatch(/ load_skill (\d+)\) --/);
    expect(Number(/ load_skill (\d+)\) --/.exec(printed)?.[1])).toBeLessThanOrEqual(45);
  });
});
