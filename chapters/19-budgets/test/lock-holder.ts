// Another process, for crashes-and-locks.test.ts: `lock-holder FOLDER PATH` takes PATH's lock in
// FOLDER, prints "locked", and lets go when its stdin closes.
import { lockFiles } from "../src/patch/file-locks.ts";

const [folder, realPath] = process.argv.slice(2) as [string, string];
const unlock = await lockFiles(folder, [realPath]);
console.log("locked");
process.stdin.on("end", () => void unlock()).resume();
