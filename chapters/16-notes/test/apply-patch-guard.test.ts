import { readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/patch/apply-patch.ts";
import { acquireWriteLeases } from "../src/patch/backups.ts";
import { patch, sha256, tree, workspace } from "./apply-patch-fixtures.ts";

const updateAtoB = patch("*** Update File: f.txt", "@@", "-a", "+b");
const expectFor = (hashes: Record<string, string>) => (rel: string) => hashes[rel];

describe("the hash guard", () => {
  it("applies when the precondition matches and reports both hashes", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      expect: expectFor({ "f.txt": sha256("a\n") }),
    });
    expect(result).toEqual({
      success: true,
      files_changed: 1,
      changed: [
        {
          op: "update",
          path: "f.txt",
          sha256: sha256("b\n"),
          previous_sha256: sha256("a\n"),
          matched: ["exact"],
        },
      ],
      failures: [],
      remaining_patch: null,
      repairs: [],
    });
  });

  it("refuses a stale precondition with file_changed and the current hash", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const stale = sha256("something else\n");
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      expect: expectFor({ "f.txt": stale }),
    });
    expect(result.failures).toEqual([
      {
        path: "f.txt",
        code: "file_changed",
        message: `f.txt has changed since it was last read: expected sha256 ${stale}, found ${sha256("a\n")}.`,
        hint: "Read f.txt again and rebuild the patch against its current contents.",
        current_sha256: sha256("a\n"),
      },
    ]);
    expect(result.remaining_patch).toBe(updateAtoB);
    expect(await tree(root)).toEqual({ "f.txt": "a\n" });
  });

  it("in agent mode refuses existing bytes nobody read (not_read), but not new files", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const refused = await applyPatch(updateAtoB, { cwd: root, requireRead: true });
    expect(refused.failures).toEqual([
      {
        path: "f.txt",
        code: "not_read",
        message:
          "Cannot update f.txt: it has not been read in this run, so the patch may be built on a wrong picture of it.",
        hint: "Read f.txt with read_file first, then send the patch again.",
      },
    ]);
    const deleting = await applyPatch(patch("*** Delete File: f.txt"), {
      cwd: root,
      requireRead: true,
    });
    expect(deleting.failures[0]!.message).toBe(
      "Cannot delete f.txt: it has not been read in this run, so the patch may be built on a wrong picture of it.",
    );
    const adding = await applyPatch(patch("*** Add File: f.txt", "+x"), {
      cwd: root,
      requireRead: true,
    });
    expect(adding.failures[0]!.code).toBe("not_read");
    expect(adding.failures[0]!.message).toMatch(/^Cannot replace f\.txt: /);

    const fresh = await applyPatch(
      patch("*** Add File: g.txt", "+x", "*** Update File: g.txt", "@@", "-x", "+y"),
      {
        cwd: root,
        requireRead: true,
      },
    );
    expect(fresh.success).toBe(true);
    expect(await tree(root)).toEqual({ "f.txt": "a\n", "g.txt": "y\n" });
  });

  it("refuses Add onto an existing file without a precondition (file_exists), allows it with one", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const addF = patch("*** Add File: f.txt", "+new");
    const refused = await applyPatch(addF, { cwd: root });
    expect(refused.failures).toEqual([
      {
        path: "f.txt",
        code: "file_exists",
        message:
          "Cannot add f.txt: the file already exists, and Add File never overwrites bytes nobody has looked at.",
        hint: 'Change it with "*** Update File: f.txt", or pass --expect f.txt=<sha256 of its current bytes> to replace it on purpose.',
      },
    ]);
    expect(await tree(root)).toEqual({ "f.txt": "a\n" });

    const allowed = await applyPatch(addF, {
      cwd: root,
      expect: expectFor({ "f.txt": sha256("a\n") }),
    });
    expect(allowed.changed).toEqual([
      { op: "add", path: "f.txt", sha256: sha256("new\n"), previous_sha256: sha256("a\n") },
    ]);
    expect(await tree(root)).toEqual({ "f.txt": "new\n" });
  });

  it("refuses a Move onto an existing file without a precondition", async () => {
    const root = await workspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const move = patch("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-a", "+moved");
    const refused = await applyPatch(move, { cwd: root });
    expect(refused.failures).toEqual([
      {
        path: "b.txt",
        code: "file_exists",
        message:
          "Cannot move a.txt to b.txt: b.txt already exists, and a move never overwrites bytes nobody has looked at.",
        hint: "Move to a path that does not exist yet, or pass --expect b.txt=<sha256 of its current bytes> to replace it on purpose.",
      },
    ]);
    expect(await tree(root)).toEqual({ "a.txt": "a\n", "b.txt": "b\n" });

    const allowed = await applyPatch(move, {
      cwd: root,
      expect: expectFor({ "b.txt": sha256("b\n") }),
    });
    expect(allowed.success).toBe(true);
    expect(await tree(root)).toEqual({ "b.txt": "moved\n" });
  });

  it("checks again right before the rename: a write in between gives file_changed and no write", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      expect: expectFor({ "f.txt": sha256("a\n") }),
      beforeCommit: () => writeFile(path.join(root, "f.txt"), "someone else\n"),
    });
    expect(result.success).toBe(false);
    expect(result.files_changed).toBe(0);
    expect(result.failures).toEqual([
      {
        path: "f.txt",
        code: "file_changed",
        message: `f.txt changed on disk while the patch was being applied (its sha256 is now ${sha256("someone else\n")}); nothing was written to it.`,
        hint: "Read f.txt again and rebuild the patch against its current contents.",
        current_sha256: sha256("someone else\n"),
      },
    ]);
    // The other writer's bytes survive, and no temp file or backup is left behind (.agent/ holds
    // only the empty folder of the locks).
    expect(await tree(root, true)).toEqual({ "f.txt": "someone else\n" });
  });

  it("says so when the file was deleted between the read and the rename", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const result = await applyPatch(updateAtoB, {
      cwd: root,
      beforeCommit: () => rm(path.join(root, "f.txt")),
    });
    expect(result.failures).toEqual([
      {
        path: "f.txt",
        code: "file_changed",
        message:
          "f.txt changed on disk while the patch was being applied (it was deleted); nothing was written to it.",
        hint: "Read f.txt again and rebuild the patch against its current contents.",
      },
    ]);
    expect(result.remaining_patch).toBe(updateAtoB);
    expect(await tree(root, true)).toEqual({});
  });

  it("never loses an update when two unguarded patches hit one file at once", async () => {
    const root = await workspace({ "f.txt": "a\nb\n" });
    const results = await Promise.all([
      applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+a1"), { cwd: root }),
      applyPatch(patch("*** Update File: f.txt", "@@", "-b", "+b2"), { cwd: root }),
    ]);
    expect(results.map((r) => r.success)).toEqual([true, true]);
    expect(await tree(root)).toEqual({ "f.txt": "a1\nb2\n" });
  });

  it("lets only one of two patches guarded by the same hash through", async () => {
    const root = await workspace({ "f.txt": "a\nb\n" });
    const expect1 = expectFor({ "f.txt": sha256("a\nb\n") });
    const results = await Promise.all([
      applyPatch(patch("*** Update File: f.txt", "@@", "-a", "+a1"), {
        cwd: root,
        expect: expect1,
      }),
      applyPatch(patch("*** Update File: f.txt", "@@", "-b", "+b2"), {
        cwd: root,
        expect: expect1,
      }),
    ]);
    expect(results.map((r) => r.success).sort()).toEqual([false, true]);
    const loser = results.find((r) => !r.success)!;
    expect(loser.failures[0]!.code).toBe("file_changed");
    const content = (await tree(root))["f.txt"];
    expect(["a1\nb\n", "a\nb2\n"]).toContain(content);
    expect(loser.failures[0]!.current_sha256).toBe(sha256(content!));
  });
});

describe("write leases", () => {
  it("makes a second writer wait until the first releases", async () => {
    const order: string[] = [];
    const releaseFirst = await acquireWriteLeases(["/w/a"]);
    const second = acquireWriteLeases(["/w/a"]).then((release) => {
      order.push("second");
      release();
    });
    await new Promise((resolve) => setImmediate(resolve));
    order.push("first done");
    releaseFirst();
    await second;
    expect(order).toEqual(["first done", "second"]);
  });

  it("keys the lease by the real path: a patch through a symlinked workspace waits too", async () => {
    const root = await workspace({ "f.txt": "a\n" });
    const alias = path.join(await workspace(), "alias");
    await symlink(root, alias);
    const release = await acquireWriteLeases([path.join(await realpath(root), "f.txt")]);
    let done = false;
    const patching = applyPatch(updateAtoB, { cwd: alias }).then((result) => {
      done = true;
      return result;
    });
    // Give the patch every chance to run: it must still be waiting for the lease.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("a\n");
    release();
    expect((await patching).success).toBe(true);
    expect(await readFile(path.join(root, "f.txt"), "utf8")).toBe("b\n");
  });

  it("takes several leases in sorted order, so crossing requests cannot deadlock", async () => {
    const rounds = Array.from({ length: 20 }, (_, i) =>
      acquireWriteLeases(i % 2 === 0 ? ["/w/x", "/w/y"] : ["/w/y", "/w/x"]).then((release) =>
        setImmediate(release),
      ),
    );
    await Promise.all(rounds);
    const again = await acquireWriteLeases(["/w/y", "/w/x"]);
    again();
  });
});
