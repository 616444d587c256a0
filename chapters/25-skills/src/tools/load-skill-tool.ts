import { readdir, realpath } from "node:fs/promises";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { z } from "zod";
import { sha256 } from "../fs/file-hash.ts";
import { describeFileType, readRegularFile } from "../fs/read-regular-file.ts";
import { isSecretFile, secretFilesAllowed } from "../fs/secret-files.ts";
import type { RunLedger } from "../ledger/run-ledger.ts";
import { MAX_SKILL_BYTES, type Skill } from "../skills/discover-skills.ts";
import { defineTool, type AnyTool, type ToolResult } from "./define-tool.ts";
import { ToolError } from "./tool-error.ts";

// The files beside a SKILL.md that a load lists, and the folders walked to find them: enough for
// scripts/ and references/, bounded however deep a skill nests.
const MAX_LISTED_FILES = 50;
const MAX_WALKED_FOLDERS = 20;

/**
 * load_skill: the instructions of a skill the prompt only names, or a file beside them ("name/file").
 * Skills in the home folder are outside the workspace, where read_file cannot go; this tool reads
 * them, and only them. Every load goes into the ledger with the hash of what the model read.
 */
export function loadSkillTool(skills: readonly Skill[]): AnyTool {
  return defineTool({
    name: "load_skill",
    // Sent with every request: the prompt's "# Skills" section says the rest.
    description: "Load a skill by name, or name/file.",
    effect: "read",
    schema: z.object({ name: z.string().min(1) }),
    async execute({ name }, context) {
      // Every load goes on the record, as update_plan's plans do: the harness always gives the
      // ledger, so a context without one is its bug, not the model's to fix (a plain Error).
      const ledger = context.ledger;
      if (!ledger) {
        throw new Error("no run ledger in the tool context (a bug in the harness)");
      }
      const slash = name.indexOf("/");
      const skillName = slash === -1 ? name : name.slice(0, slash);
      const skill = skills.find((candidate) => candidate.name === skillName);
      if (skill === undefined) {
        throw new ToolError(
          "unknown_skill",
          `There is no skill "${skillName}". The skills are: ${skills.map((s) => s.name).join(", ")}.`,
          "Call load_skill again with one of those names.",
        );
      }
      if (slash !== -1) return loadFile(skill, name.slice(slash + 1), ledger);
      await ledger.recordSkillLoaded({
        name: skill.name,
        path: skill.shown,
        sha256: skill.sha256,
      });
      const folder = posix.dirname(skill.shown);
      const files = await filesBeside(skill.dir);
      const lines = [
        `Skill ${skill.name} (${skill.shown}). Its own files are in ${folder}/.`,
        "",
        skill.body,
      ];
      if (files.length > 0) {
        lines.push(
          "",
          `Files beside it (load one with "${skill.name}/<file>"): ${files.join(", ")}`,
        );
      }
      return { ok: true, content: lines.join("\n") };
    },
  });
}

async function loadFile(skill: Skill, file: string, ledger: RunLedger): Promise<ToolResult> {
  const shown = `${posix.dirname(skill.shown)}/${file}`;
  // Checked on the real paths: a symlink in the skill's folder must not lead out of it.
  const real = await realpath(join(skill.dir, file)).catch(() => undefined);
  const inside = real === undefined ? "" : relative(await realpath(skill.dir), real);
  const outside = inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  if (real === undefined || inside === "" || outside) {
    throw new ToolError(
      "not_in_skill",
      `${skill.name} has no file "${file}" in its folder.`,
      `Call load_skill with "${skill.name}" to see its files, and name one of those.`,
    );
  }
  if ((isSecretFile(file) || isSecretFile(inside)) && !secretFilesAllowed()) {
    throw new ToolError(
      "secret_file",
      `${shown} looks like a file of secrets; load_skill does not show it, because what it shows is sent to the model's provider.`,
      "Continue without it.",
    );
  }
  // Node's own message names the absolute path, the home folder's included: only the code goes on.
  const { stats, bytes } = await readRegularFile(real, MAX_SKILL_BYTES).catch((error: unknown) => {
    throw new ToolError(
      "io_error",
      `${shown} cannot be read (${(error as NodeJS.ErrnoException).code ?? "unknown error"}).`,
      "Continue without it, or ask the user to make it readable.",
    );
  });
  if (bytes === null) {
    const what = stats.isFile()
      ? `too big: ${stats.size} bytes, the limit is ${MAX_SKILL_BYTES}`
      : `${describeFileType(stats)}, not a regular file`;
    throw new ToolError(
      "not_loadable",
      `${shown} is ${what}.`,
      "Continue without it, or ask the user what it says.",
    );
  }
  await ledger.recordSkillLoaded({ name: skill.name, path: shown, sha256: sha256(bytes) });
  return {
    ok: true,
    content: `${shown} (a file of skill ${skill.name}):\n\n${bytes.toString("utf8")}`,
  };
}

/** The files in a skill's folder but SKILL.md, "/"-separated, a bounded walk that follows no link. */
async function filesBeside(dir: string): Promise<string[]> {
  const files: string[] = [];
  const folders = [""];
  for (let walked = 0; walked < MAX_WALKED_FOLDERS && folders.length > 0; walked += 1) {
    const folder = folders.shift()!;
    const entries = await readdir(join(dir, folder), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) folders.push(path);
      else if (entry.isFile() && path !== "SKILL.md") files.push(path);
    }
    if (files.length >= MAX_LISTED_FILES) return [...files.slice(0, MAX_LISTED_FILES), "…"];
  }
  return folders.length > 0 ? [...files, "…"] : files;
}
